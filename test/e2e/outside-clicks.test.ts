/**
 * Nobody sees or decides a request they could not see and decide in its channel (issue 35, item
 * 1), end to end: the real bot over signed HTTP, real Redis, two organizations' simulators bound
 * to two channels by ORGANIZATIONS_FILE, APPROVERS unset ("anyone in the channel but the
 * requester"). The Slack stand-in lists each channel's members (conversations.members):
 * U0OUTSIDER is only in the analytics channel, everyone else in both.
 */
import { describe, expect, it } from 'vitest';
import { ACTION_APPROVE, ACTION_CANCEL, ACTION_REJECT } from '../../src/core/render/change.js';
import { ACTION_EXTEND, ACTION_REVERT_NOW } from '../../src/core/render/temporary.js';
import { answerText, CHANNEL, requestChange, textOf, useHarnesses, USERS, type Harness } from './harness.js';
import { usePolicyFiles } from './policy-files.js';
import { ANALYTICS, BILL, BILLING, billingPatches, LEDGER_ID } from './two-organizations.js';

const harness = useHarnesses({ organizations: [ANALYTICS, BILLING], temporaryTickMs: 50 });
const policyFile = usePolicyFiles();

/** A DM of the app with the outsider: a copy of a request there is clicked from outside its channel. */
const OUTSIDER_DM = 'D0OUTSIDER';

async function openHome(h: Harness, user: string) {
  const after = h.slack.calls.length;
  await h.event({ type: 'app_home_opened', user, channel: `D${user.slice(1)}`, tab: 'home' });
  const call = await h.slack.waitFor('views.publish', (a) => a.user_id === user, { after });
  return call.args.view as { blocks: unknown[] };
}

/** The request ids of a Home view's buttons with this action id. */
function buttons(view: { blocks: unknown[] }, actionId: string): string[] {
  return (view.blocks as Array<{ elements?: Array<{ action_id: string; value: string }> }>)
    .flatMap((b) => b.elements ?? [])
    .filter((e) => e.action_id === actionId)
    .map((e) => e.value);
}

/** The next DM the bot sends this person (a Home click is answered there: it has no channel). */
function nextDm(h: Harness, user: string) {
  const after = h.slack.calls.length;
  return h.slack
    .waitFor('chat.postMessage', (a) => a.channel === user, { after })
    .then((call) => textOf(call.args.blocks));
}

/** What an outsider is told: nothing of the request, nor of its channel. */
function expectRefusedBlind(text: string, id: string, why = 'it belongs to a channel you are not in') {
  expect(text).toContain(why);
  expect(text).not.toContain('ledger');
  expect(text).not.toContain(BILL);
  expect(text).not.toContain(id);
}

describe('a request seen and decided from outside its channel (the Home tab, a DM)', () => {
  it('someone only in #analytics sees nothing of a #billing request on Home, and its buttons do nothing for them', async () => {
    const h = await harness();
    const { id } = await requestChange(h, 'rename ledger-prod ledger-main', USERS.requester, BILL);
    const nearby = await requestChange(h, 'rename orders-staging orders-stage', USERS.requester, CHANNEL);

    // Anyone in #billing but the requester may approve it: they find it waiting on their Home.
    expect(buttons(await openHome(h, USERS.approver), ACTION_APPROVE)).toStrictEqual([nearby.id, id]);
    const outsiderHome = await openHome(h, USERS.outsider);
    expect(buttons(outsiderHome, ACTION_APPROVE)).toStrictEqual([nearby.id]);
    expect(textOf(outsiderHome)).not.toContain(id);
    expect(textOf(outsiderHome)).not.toContain('ledger');

    // A click that reaches the bot anyway (an old Home, a forged one, a DM copy) decides nothing.
    const fromHome = nextDm(h, USERS.outsider);
    await h.clickHome(ACTION_APPROVE, id, USERS.outsider);
    expectRefusedBlind(await fromHome, id);
    const fromDm = await h.click(ACTION_APPROVE, id, USERS.outsider, undefined, { channel: OUTSIDER_DM });
    expectRefusedBlind(await answerText(h, fromDm), id);
    const rejected = await h.click(ACTION_REJECT, id, USERS.outsider, undefined, { channel: OUTSIDER_DM });
    expectRefusedBlind(await answerText(h, rejected), id);
    const cancelled = await h.click(ACTION_CANCEL, id, USERS.outsider, undefined, { channel: OUTSIDER_DM });
    expect(await answerText(h, cancelled)).not.toContain('ledger');
    expect((await h.bot.changeStore.get(id))?.status).toBe('pending');
    expect(billingPatches(h)).toHaveLength(0);

    // Someone in #billing approves it from their Home as they could in the channel.
    await h.clickHome(ACTION_APPROVE, id, USERS.approver);
    await h.slack.waitFor('chat.update', (a) => textOf(a.blocks).includes(id) && textOf(a.blocks).includes('Applied'));
    expect(h.simulators.billing?.service(LEDGER_ID)?.name).toBe('ledger-main');
  });

  it('Revert now and Extend of a #billing grant clicked outside #billing by someone not in it change nothing', async () => {
    const h = await harness();
    const { id } = await requestChange(h, 'ip add ledger-prod 192.0.2.9 hotel for 1h', USERS.requester, BILL);
    await h.click(ACTION_APPROVE, id, USERS.approver, undefined, { channel: BILL });
    await h.slack.waitFor('chat.update', (a) => textOf(a.blocks).includes(id) && textOf(a.blocks).includes('Applied'));
    const entry = () => h.simulators.billing?.service(LEDGER_ID)?.ipAccessList?.some((e) => e.source === '192.0.2.9');
    expect(entry()).toBe(true);

    for (const action of [ACTION_REVERT_NOW, ACTION_EXTEND]) {
      const click = await h.click(action, id, USERS.outsider, undefined, { channel: OUTSIDER_DM });
      expectRefusedBlind(await answerText(h, click), id);
    }
    expect(entry()).toBe(true);
    expect(billingPatches(h)).toHaveLength(1);
    expect(await h.bot.changeStore.get(`${id}-R`)).toBeUndefined();
  });

  it('Mark reviewed on a break-glass review is refused from Home to someone not in its channel', async () => {
    const policy = 'breakglass: [U0REQUESTER]\nrules:\n  - name: everything\n    match: {}\n    approvals: 1\n';
    const h = await harness({ env: { POLICY_FILE: policyFile(policy) } });
    await h.command(
      'breakglass ip add ledger-prod 203.0.113.9 laptop for 1h because "INC-7 down"',
      USERS.requester,
      BILL,
    );
    const review = await h.slack.waitFor('chat.postMessage', (a) => /CR-[0-9A-F]{10}-B/.test(textOf(a.blocks)));
    const reviewId = /CR-[0-9A-F]{10}-B/.exec(textOf(review.args.blocks))?.[0] ?? '';

    expect(buttons(await openHome(h, USERS.outsider), ACTION_APPROVE)).toStrictEqual([]);
    const refused = nextDm(h, USERS.outsider);
    await h.clickHome(ACTION_APPROVE, reviewId, USERS.outsider);
    expectRefusedBlind(await refused, reviewId);
    expect((await h.bot.changeStore.get(reviewId))?.status).toBe('pending');

    expect(buttons(await openHome(h, USERS.approver), ACTION_APPROVE)).toStrictEqual([reviewId]);
    await h.clickHome(ACTION_APPROVE, reviewId, USERS.approver);
    await expect.poll(async () => (await h.bot.changeStore.get(reviewId))?.status).toBe('applied');
  });

  it('reads every page of a big channel’s members', async () => {
    const h = await harness();
    // Slack lists at most 1,000 members a page: the approver is on the second.
    const crowd = Array.from({ length: 1_000 }, (_, i) => `U1${String(i).padStart(6, '0')}`);
    h.slack.channelMembers.set(BILL, [...crowd, USERS.approver]);
    const { id } = await requestChange(h, 'rename ledger-prod ledger-main', USERS.requester, BILL);
    expect(buttons(await openHome(h, USERS.approver), ACTION_APPROVE)).toStrictEqual([id]);
    expect(h.slack.callsOf('conversations.members', (a) => a.channel === BILL).length).toBeGreaterThanOrEqual(2);
  });

  it('when Slack will not list the channel, a click from outside it is refused and whoever runs the bot is told why', async () => {
    const h = await harness();
    h.slack.failingMembers.set(BILL, 'missing_scope');
    const { id } = await requestChange(h, 'rename ledger-prod ledger-main', USERS.requester, BILL);

    expect(buttons(await openHome(h, USERS.approver), ACTION_APPROVE)).toStrictEqual([]);
    const refused = nextDm(h, USERS.approver);
    await h.clickHome(ACTION_APPROVE, id, USERS.approver);
    const text = await refused;
    expectRefusedBlind(text, id, 'the bot could not check whether you are in its channel');
    expect(text).toContain("could not check who is in the request's channel (Slack said: `missing_scope`)");
    expect(text).toContain('channels:read and groups:read');
    expect((await h.bot.changeStore.get(id))?.status).toBe('pending');

    // In the channel itself Slack shows the buttons to its members only: nothing to read there.
    await h.click(ACTION_APPROVE, id, USERS.approver, undefined, { channel: BILL });
    await h.slack.waitFor('chat.update', (a) => textOf(a.blocks).includes(id) && textOf(a.blocks).includes('Applied'));
  });
});
