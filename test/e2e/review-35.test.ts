/**
 * The review of issue 35 run again (its "Done when"): ways for a person to see or decide a request
 * they could not see or decide in its channel, end to end (the real bot over signed HTTP, real
 * Redis, two organizations bound to two channels, APPROVERS unset: "anyone in the channel but the
 * requester"). U0OUTSIDER is only in the analytics channel.
 *
 * A form's private_metadata comes back in the view_submission, which the submitter's client
 * sends: the bot must not take the channel (or anything else) in it on trust.
 */
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ACTION_APPROVE, ACTION_ASK_AGAIN, ACTION_REJECT } from '../../src/core/render/change.js';
import { followOnFormView } from '../../src/core/render/follow-on-form.js';
import { EDIT_CALLBACK } from '../../src/core/render/modal.js';
import { BLOCK } from '../support/blocks.js';
import { ACTION_EXTEND, ACTION_REVERT_NOW } from '../../src/core/render/temporary.js';
import { REJECT_BLOCK, rejectView } from '../../src/core/render/reject-form.js';
import { DEMO_IDS } from '../../src/simulator/seed.js';
import { answerText, CHANNEL, requestChange, textOf, useHarnesses, USERS, type Harness } from './harness.js';
import { usePolicyFiles } from './policy-files.js';
import { ANALYTICS, BILL, BILLING, billingPatches, LEDGER_ID } from './two-organizations.js';

const harness = useHarnesses({ organizations: [ANALYTICS, BILLING], temporaryTickMs: 50 });
const policyFile = usePolicyFiles();

const input = (value: string) => ({ value: { type: 'plain_text_input', value } });

/** A #billing grant (an IP entry for 1 h), approved in #billing and applied. */
async function appliedBillingGrant(h: Harness): Promise<string> {
  const { id } = await requestChange(h, 'ip add ledger-prod 192.0.2.9 hotel for 1h', USERS.requester, BILL);
  await h.click(ACTION_APPROVE, id, USERS.approver, undefined, { channel: BILL });
  await h.slack.waitFor('chat.update', (a) => textOf(a.blocks).includes(id) && textOf(a.blocks).includes('Applied'));
  return id;
}

describe('forms whose private_metadata the submitter forged (issue 35 review)', () => {
  it('a Reject form naming #billing as its channel does not let someone outside #billing reject its request', async () => {
    const h = await harness();
    const { id } = await requestChange(h, 'rename ledger-prod ledger-main', USERS.requester, BILL);
    // The form a member of #billing would get from its Reject button, submitted by the outsider.
    const forged = rejectView({ requestId: id, channelId: BILL }) as unknown as Record<string, unknown>;
    const refused = await h.submitView(forged, { [REJECT_BLOCK]: input('not on my watch') }, USERS.outsider);
    // Refused in the acknowledgement itself, before anything could be decided.
    expect(refused.body).toContain('This form is out of date');
    expect((await h.bot.changeStore.get(id))?.status).toBe('pending');

    // The form the bot itself opens for a member of #billing still rejects.
    const after = h.slack.calls.length;
    await h.click(ACTION_REJECT, id, USERS.approver, undefined, { channel: BILL, trigger: true });
    const opened = await h.slack.waitFor('views.open', () => true, { after });
    const ack = await h.submitView(
      opened.args.view as Record<string, unknown>,
      { [REJECT_BLOCK]: input('not now') },
      USERS.approver,
    );
    expect(ack.body).toBe('');
    await expect.poll(async () => (await h.bot.changeStore.get(id))?.status).toBe('rejected');
  });

  it.each(['undo', 'extend'] as const)(
    'a %s form naming #billing does not let someone outside #billing act on its change',
    async (action) => {
      const h = await harness();
      const id = await appliedBillingGrant(h);
      const forged = followOnFormView({ action, originalId: id, channelId: BILL, asks: [] }) as unknown as Record<
        string,
        unknown
      >;
      const refused = await h.submitView(forged, {}, USERS.outsider);
      expect(refused.body).toContain('This form is out of date');
      const filed = (await h.bot.changeStore.listPending(BILL, Date.now())).filter(
        (r) => r.undoOf === id || r.extendOf === id,
      );
      expect(filed).toStrictEqual([]);
    },
  );

  it('an edit form re-pointed at #billing files nothing there for someone outside #billing', async () => {
    const h = await harness();
    // The outsider's own edit form, opened in #analytics, its metadata re-pointed at the ledger in #billing.
    await h.command('edit orders-prod', USERS.outsider, CHANNEL);
    const view = (await h.slack.waitFor('views.update', (a) => JSON.stringify(a.view).includes(EDIT_CALLBACK))).args
      .view as Record<string, unknown>;
    const metadata = JSON.parse(String(view.private_metadata)) as Record<string, unknown>;
    const forged = {
      ...view,
      private_metadata: JSON.stringify({ ...metadata, channelId: BILL, serviceId: LEDGER_ID }),
    };
    const refused = await h.submitView(forged, { [BLOCK.name]: input('ledger-owned') }, USERS.outsider);
    expect(refused.body).toContain('This form is out of date');
    expect(await h.bot.changeStore.listPending(BILL, Date.now())).toStrictEqual([]);
    expect(billingPatches(h)).toHaveLength(0);

    // The form as the bot opened it still files its request in #analytics.
    expect((await h.submitView(view, { [BLOCK.name]: input('orders-main') }, USERS.outsider)).body).toBe('');
    await expect
      .poll(async () => (await h.bot.changeStore.listPending(CHANNEL, Date.now())).map((r) => r.plan.serviceId))
      .toStrictEqual([DEMO_IDS.ordersProd]);
  });
});

/** The next DM the bot sends this person (a Home click is answered there: it has no channel). */
function nextDm(h: Harness, user: string) {
  const after = h.slack.calls.length;
  return h.slack
    .waitFor('chat.postMessage', (a) => a.channel === user, { after })
    .then((call) => textOf(call.args.blocks));
}

describe('answers to a click from outside the request’s channel (issue 35 review)', () => {
  it('an Approve from Home on a settled #billing request tells someone outside #billing nothing of it', async () => {
    const h = await harness();
    const { id } = await requestChange(h, 'rename ledger-prod ledger-main', USERS.requester, BILL);
    await h.click(ACTION_REJECT, id, USERS.approver, undefined, { channel: BILL });
    await expect.poll(async () => (await h.bot.changeStore.get(id))?.status).toBe('rejected');

    const told = nextDm(h, USERS.outsider);
    await h.clickHome(ACTION_APPROVE, id, USERS.outsider);
    const text = await told;
    expect(text).toContain('it belongs to a channel you are not in');
    expect(text).not.toContain(USERS.approver);
    expect(text).not.toContain('ledger');
  });

  it('an Approve from Home on a #billing request its channel may no longer approve names nothing of it to an outsider', async () => {
    const h = await harness();
    const { id } = await requestChange(h, 'rename ledger-prod ledger-main', USERS.requester, BILL);
    // #billing may now change only services tagged env=dev: the ledger is out of its scope.
    await h.organizationsFile?.write([
      ANALYTICS,
      { ...BILLING, channels: { [BILL]: { services: { tags: { env: 'dev' } } } } },
    ]);
    expect((await h.bot.reloadOrganizations()).ok).toBe(true);

    const told = nextDm(h, USERS.outsider);
    await h.clickHome(ACTION_APPROVE, id, USERS.outsider);
    const text = await told;
    expect(text).toContain('it belongs to a channel you are not in');
    expect(text).not.toContain('ledger');
    expect(text).not.toContain(LEDGER_ID);
    expect((await h.bot.changeStore.get(id))?.status).toBe('pending');
  });
});

/**
 * Two renames of ledger-prod asked in #billing; the first is approved and applied, then the second
 * is approved, which makes it stale (the name it was planned against is gone).
 */
async function twoRenamesOneApplied(h: Harness) {
  const first = await requestChange(h, 'rename ledger-prod ledger-a', USERS.requester, BILL);
  const second = await requestChange(h, 'rename ledger-prod ledger-b', USERS.second, BILL);
  await h.click(ACTION_APPROVE, first.id, USERS.approver, undefined, { channel: BILL });
  await h.slack.waitFor(
    'chat.update',
    (a) => textOf(a.blocks).includes(first.id) && textOf(a.blocks).includes('Applied'),
  );
  await h.click(ACTION_APPROVE, second.id, USERS.approver, undefined, { channel: BILL });
  return { first, second };
}

describe('Ask again clicked from outside the request’s channel (issue 35 review)', () => {
  it('tells someone outside #billing nothing of a stale #billing request, not even who asked for it', async () => {
    const h = await harness();
    const { second } = await twoRenamesOneApplied(h);
    const failed = await h.slack.waitFor(
      'chat.update',
      (a) => textOf(a.blocks).includes(second.id) && textOf(a.blocks).includes('Not applied'),
    );
    expect(JSON.stringify(failed.args.blocks)).toContain(ACTION_ASK_AGAIN);

    const click = await h.click(ACTION_ASK_AGAIN, second.id, USERS.outsider, undefined, { channel: 'D0OUTSIDER' });
    const text = await answerText(h, click);
    expect(text).toContain('it belongs to a channel you are not in');
    expect(text).not.toContain(USERS.second);
  });
});

describe('Extend and Undo under the channel’s guardrails (issue 35 review)', () => {
  const AUTO_IP = 'rules:\n  - name: ip access\n    match: { changes: [ip-access] }\n    approvals: 0\n';

  it('Extend of a #billing grant is refused once #billing may no longer change IP access', async () => {
    const h = await harness({ env: { POLICY_FILE: policyFile(AUTO_IP) } });
    await h.command('ip add ledger-prod 192.0.2.9 hotel for 1h', USERS.requester, BILL);
    const id = (await h.slack.waitFor('chat.update', (a) => textOf(a.blocks).includes('Applied'))).args.blocks;
    const grantId = /CR-[0-9A-F]{10}/.exec(textOf(id))?.[0] ?? '';
    // The operators take IP access away from #billing.
    await h.organizationsFile?.write([ANALYTICS, { ...BILLING, channels: { [BILL]: { allow: ['list', 'show'] } } }]);
    expect((await h.bot.reloadOrganizations()).ok).toBe(true);

    const answer = await answerText(
      h,
      await h.click(ACTION_EXTEND, grantId, USERS.requester, undefined, { channel: BILL }),
    );
    expect(answer).toContain('The extension was not filed: `ip-access` changes are no longer allowed in this channel.');
    const extensions = (await Promise.all([h.bot.changeStore.listPending(BILL, Date.now())]))
      .flat()
      .filter((r) => r.extendOf === grantId);
    expect(extensions).toStrictEqual([]);
    // Nothing applied an extension either (auto-approved, it would be applied at once).
    const applied = h.slack
      .callsOf('chat.postMessage')
      .filter(
        (c) => textOf(c.args.blocks).includes(`Revert of ${grantId}`) || textOf(c.args.blocks).includes('xtension'),
      );
    expect(applied).toStrictEqual([]);
  });
});

describe('a request decided in an approval channel, clicked in the channel it was asked in (issue 35 review)', () => {
  const plainHarness = useHarnesses({ temporaryTickMs: 50 });
  const DBAS = 'C0DBAS';
  const DBAS_DECIDE = `rules:\n  - name: dbas decide\n    match: {}\n    approvals: 1\n    channel: ${DBAS}\n`;

  it('Revert now there counts only for someone who may approve it in the approval channel', async () => {
    const h = await plainHarness({ env: { POLICY_FILE: policyFile(DBAS_DECIDE) } });
    // Anyone in #dbas may approve: the outsider is in the requester's channel only.
    h.slack.channelMembers.set(DBAS, [USERS.requester, USERS.approver]);
    await h.command('ip add orders-prod 192.0.2.77 hotel for 1h');
    const inDbas = await h.slack.waitFor('chat.postMessage', (a) => a.channel === DBAS);
    const id = /CR-[0-9A-F]{10}/.exec(textOf(inDbas.args.blocks))?.[0] ?? '';
    await h.click(ACTION_APPROVE, id, USERS.approver, undefined, { channel: DBAS });
    await h.slack.waitFor('chat.update', (a) => textOf(a.blocks).includes(id) && textOf(a.blocks).includes('Applied'));
    const entry = () => h.simulator.service(DEMO_IDS.ordersProd)?.ipAccessList?.some((e) => e.source === '192.0.2.77');
    expect(entry()).toBe(true);

    const answer = await answerText(
      h,
      await h.click(ACTION_REVERT_NOW, id, USERS.outsider, undefined, { channel: CHANNEL }),
    );
    expect(answer).toContain('Only the person who asked for this change');
    expect(entry()).toBe(true);
    expect(await h.bot.changeStore.get(`${id}-R`)).toBeUndefined();
  });
});

describe('Ask again under the channel’s guardrails (issue 35 review)', () => {
  const ONE = 'rules:\n  - name: everything\n    match: {}\n    approvals: 1\n';
  const NONE = 'rules:\n  - name: everything\n    match: {}\n    approvals: 0\n';

  it('files nothing once #billing may no longer change it, even where no approval would be asked', async () => {
    const path = policyFile(ONE);
    const h = await harness({ env: { POLICY_FILE: path } });
    const { second } = await twoRenamesOneApplied(h);
    await h.slack.waitFor(
      'chat.update',
      (a) => textOf(a.blocks).includes(second.id) && textOf(a.blocks).includes('Not applied'),
    );
    writeFileSync(path, NONE);
    expect((await h.bot.reloadPolicy()).ok).toBe(true);
    await h.organizationsFile?.write([ANALYTICS, { ...BILLING, channels: { [BILL]: { allow: ['list', 'show'] } } }]);
    expect((await h.bot.reloadOrganizations()).ok).toBe(true);

    const answer = await answerText(
      h,
      await h.click(ACTION_ASK_AGAIN, second.id, USERS.second, undefined, { channel: BILL }),
    );
    expect(answer).toContain('It was not filed:');
    expect(h.simulators.billing?.service(LEDGER_ID)?.name).toBe('ledger-a');
  });
});
