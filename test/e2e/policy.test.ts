/**
 * Approval policies end to end: the real bot over HTTP with real Redis, the simulator and the
 * Slack stand-in, driven by a POLICY_FILE.
 */
import { kindLines } from '../core/render/policy-lines.js';
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ACTION_APPROVE, ACTION_CANCEL, ACTION_REJECT } from '../../src/core/render/change.js';
import { DEMO_IDS } from '../../src/simulator/seed.js';
import { answerText, requestChange, startHarness, textOf, useHarnesses, USERS, type Harness } from './harness.js';
import { EXAMPLE_POLICY } from '../core/policy/examples.js';
import { usePolicyFiles } from './policy-files.js';

const harness = useHarnesses();
const policyFile = usePolicyFiles();

const DBAS = 'S0DBAS';
/** The example, with U0APPROVER as the listed user. */
const POLICY = EXAMPLE_POLICY.replace('U0APP1', USERS.approver);

const patches = (h: Harness) => h.simulator.requests.filter((r) => r.method === 'PATCH');

async function withPolicy(text = POLICY, extra: Parameters<typeof harness>[0] = {}) {
  const h = await harness({ ...extra, env: { POLICY_FILE: policyFile(text), ...extra.env } });
  h.slack.userGroups.set(DBAS, [USERS.second, USERS.requester]);
  return h;
}

function messageUpdate(h: Harness, id: string, text: string) {
  return h.slack.waitFor('chat.update', (a) => textOf(a.blocks).includes(id) && textOf(a.blocks).includes(text));
}

describe('a production change needs two approvals', () => {
  it('shows the rule and progress, records the first approval, applies on the second, exactly once', async () => {
    const h = await withPolicy();
    const { id, posted } = await requestChange(h, 'rename orders-prod orders-main');
    const message = textOf(posted.args.blocks);
    expect(message).toContain(
      '*production needs two DBAs* (env=prod): 0 of 2 approvals · 2 more from <!subteam^S0DBAS>, <@U0APPROVER>',
    );

    const first = await h.click(ACTION_APPROVE, id, USERS.approver);
    expect(await answerText(h, first)).toContain(
      'Your approval of `' +
        id +
        '` is recorded. Still needed: 1 more for *production needs two DBAs* from <!subteam^S0DBAS>.',
    );
    const progress = await messageUpdate(h, id, '1 of 2 approvals');
    expect(textOf(progress.args.blocks)).toContain(`approved by <@${USERS.approver}>`);
    expect(patches(h)).toHaveLength(0);

    const pending = await h.command('pending');
    expect(await answerText(h, pending)).toContain('1 approval so far (production needs two DBAs: 1 more)');

    await h.click(ACTION_APPROVE, id, USERS.second);
    const applied = await messageUpdate(h, id, 'Applied');
    expect(textOf(applied.args.blocks)).toContain(`Approved by <@${USERS.approver}>, <@${USERS.second}>`);
    expect(patches(h)).toHaveLength(1);
    expect(h.simulator.service(DEMO_IDS.ordersProd)?.name).toBe('orders-main');

    const stored = await h.bot.changeStore.get(id);
    expect(stored?.approvals?.map((a) => a.userId)).toEqual([USERS.approver, USERS.second]);
    const audit = (await h.bot.changeStore.readAudit({ serviceId: DEMO_IDS.ordersProd, limit: 10 })).filter(
      (e) => e.changeId === id,
    );
    expect(audit.map((e) => [e.action, e.actorId])).toEqual([
      ['applied', USERS.second],
      ['approved', USERS.second],
      ['approved', USERS.approver],
      ['requested', USERS.requester],
    ]);
    expect(audit.at(-1)?.message).toMatch(
      /^Rules: production needs two DBAs: 2 approvals \(env=prod\)\. Policy sha256 [0-9a-f]{64}\.$/,
    );
    expect(audit[1]?.message).toBe(
      'Counts for: production needs two DBAs. The last approval needed: applying the change.',
    );
    const history = await h.command('history orders-main');
    const shown = await answerText(h, history);
    expect(shown).toContain('Counts for: production needs two DBAs.');
    expect(shown).toContain('Policy sha256');
  });

  it('refuses ineligible clicks privately, naming who can approve, and counts nobody twice', async () => {
    const h = await withPolicy();
    const { id } = await requestChange(h, 'release-channel orders-prod fast');
    const outsider = await h.click(ACTION_APPROVE, id, USERS.outsider);
    expect(await answerText(h, outsider)).toContain(
      ':no_entry_sign: Your approval would not count for any rule this request still needs. Still needed: 2 more for *production needs two DBAs* from <!subteam^S0DBAS>, <@U0APPROVER>. Nothing was changed.',
    );
    // The requester is in the DBA group, and still does not count.
    const own = await h.click(ACTION_APPROVE, id, USERS.requester);
    expect(await answerText(h, own)).toContain('You asked for this change, so someone else has to approve it.');
    await h.click(ACTION_APPROVE, id, USERS.second);
    await messageUpdate(h, id, '1 of 2 approvals');
    const again = await h.click(ACTION_APPROVE, id, USERS.second);
    expect(await answerText(h, again)).toContain(
      'You already approved this request. Still needed: 1 more for *production needs two DBAs* from <!subteam^S0DBAS>, <@U0APPROVER>.',
    );
    expect((await h.bot.changeStore.get(id))?.approvals).toHaveLength(1);
    expect(patches(h)).toHaveLength(0);
  });

  it("any eligible approver may reject, at any point; outsiders may not; cancel stays the requester's", async () => {
    const h = await withPolicy();
    const { id } = await requestChange(h, 'endpoint orders-prod mysql on');
    const outsiderReject = await h.click(ACTION_REJECT, id, USERS.outsider);
    expect(await answerText(h, outsiderReject)).toContain(
      'Only people who can approve this request can reject it: <!subteam^S0DBAS>, <@U0APPROVER>.',
    );
    const approverCancel = await h.click(ACTION_CANCEL, id, USERS.approver);
    expect(await answerText(h, approverCancel)).toContain('Only the person who asked');
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await messageUpdate(h, id, '1 of 2 approvals');
    await h.click(ACTION_REJECT, id, USERS.second);
    await messageUpdate(h, id, 'Rejected');
    expect((await h.bot.changeStore.get(id))?.status).toBe('rejected');
    expect(patches(h)).toHaveLength(0);
  });

  it('approvals made before expiry count; after expiry nothing counts', async () => {
    let skew = 0;
    const h = await withPolicy(POLICY, { clock: () => Date.now() + skew });
    const { id } = await requestChange(h, 'rename orders-prod orders-late');
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await messageUpdate(h, id, '1 of 2 approvals');
    skew = 2 * 60 * 60 * 1000;
    const late = await h.click(ACTION_APPROVE, id, USERS.second);
    expect(await answerText(h, late)).toContain('expired');
    await messageUpdate(h, id, 'Expired');
    const stored = await h.bot.changeStore.get(id);
    expect(stored?.status).toBe('expired');
    expect(stored?.approvals?.map((a) => a.userId)).toEqual([USERS.approver]);
    expect(patches(h)).toHaveLength(0);
  });
});

describe('deny and zero-approval rules', () => {
  it('refuses to open production to the world at once, with the rule text, and stores nothing', async () => {
    const h = await withPolicy();
    const before = h.slack.calls.length;
    const ack = await h.command('ip add orders-prod 0.0.0.0/0 everyone');
    const answer = await answerText(h, ack);
    expect(answer).toContain('Production is never opened to the whole internet; attach a private endpoint instead.');
    expect(answer).toContain(
      'Refused by the policy rule *never open production to the internet* (env=prod, risk world-open)',
    );
    expect(h.slack.callsOf('chat.postMessage').filter((c) => h.slack.calls.indexOf(c) >= before)).toHaveLength(0);
    expect(await h.bot.changeStore.listPending('C0CHANNEL', Date.now())).toEqual([]);
    expect(patches(h)).toHaveLength(0);
  });

  it('applies a dev IP add without approval, through the same path, naming the rule in the audit', async () => {
    const h = await withPolicy();
    const { id } = await requestChange(h, 'ip add sandbox-dev 192.0.2.55 my laptop');
    const applied = await messageUpdate(h, id, 'Applied');
    expect(textOf(applied.args.blocks)).toContain(
      'No approval needed (*developers add their own IPs to dev services*)',
    );
    expect(patches(h)).toHaveLength(1);
    expect(patches(h)[0]?.body).toEqual({
      ipAccessList: { add: [{ source: '192.0.2.55', description: 'my laptop' }] },
    });
    const audit = (await h.bot.changeStore.readAudit({ serviceId: DEMO_IDS.sandboxDev, limit: 10 })).filter(
      (e) => e.changeId === id,
    );
    expect(audit.map((e) => e.action)).toEqual(['applied', 'approved', 'requested']);
    expect(audit[1]).toMatchObject({
      actorId: USERS.requester,
      message: 'No approval needed under the policy rule(s): developers add their own IPs to dev services.',
    });
    const late = await h.click(ACTION_APPROVE, id, USERS.approver);
    expect(await answerText(h, late)).toContain('already settled');
    expect(patches(h)).toHaveLength(1);
  });

  it('without a matching rule, the default applies: one approval from APPROVERS', async () => {
    const h = await withPolicy(POLICY, { env: { APPROVERS: USERS.approver } });
    const { id, posted } = await requestChange(h, 'rename orders-staging orders-stage');
    expect(textOf(posted.args.blocks)).toContain(
      '*default: one approval* (no policy rule matches): 0 of 1 approval · 1 more from <@U0APPROVER>',
    );
    const outsider = await h.click(ACTION_APPROVE, id, USERS.second);
    expect(await answerText(h, outsider)).toContain("You are not on this bot's list of approvers");
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await messageUpdate(h, id, 'Applied');
    expect(patches(h)).toHaveLength(1);
  });
});

describe('the policy command and reloading', () => {
  it('lists the rules, and what each kind of change to a service needs; both are in help', async () => {
    const h = await withPolicy();
    const all = await answerText(h, await h.command('policy'));
    expect(all).toContain(
      '1. *production needs two DBAs*: when env=prod, needs 2 approvals from <!subteam^S0DBAS>, <@U0APPROVER>',
    );
    const one = await answerText(h, await h.command('policy sandbox-dev'));
    expect(kindLines(one, 'ip-access')[0]).toBe(
      '• `ip-access`: no approval needed (*developers add their own IPs to dev services*)',
    );
    expect(kindLines(one, 'name')[0]).toBe(
      '• `name`: 1 from anyone in the channel but the requester (*default: one approval*)',
    );
    const help = await answerText(h, await h.command('help'));
    expect(help).toContain('/clickhouse policy [SERVICE]');
    const unknown = await answerText(h, await h.command('policy no-such-service'));
    expect(unknown).toMatch(/no service|No service|not find/i);
  });

  it('reloads on request: new rules for new requests, a bad file keeps the rules in force and says why', async () => {
    const path = policyFile(POLICY);
    const h = await harness({ env: { POLICY_FILE: path } });
    h.slack.userGroups.set(DBAS, [USERS.second]);
    const before = await requestChange(h, 'rename orders-prod orders-one');

    writeFileSync(
      path,
      'rules:\n  - name: production needs one\n    match: { tags: { env: prod } }\n    approvals: 1\n',
    );
    expect(await h.bot.reloadPolicy()).toMatchObject({ ok: true, changed: true });
    expect(await answerText(h, await h.command('policy'))).toContain('production needs one');
    const after = await requestChange(h, 'release-channel orders-prod fast');
    await h.click(ACTION_APPROVE, after.id, USERS.outsider);
    await messageUpdate(h, after.id, 'Applied');
    // The request made before the reload keeps the rules it was posted with.
    await h.click(ACTION_APPROVE, before.id, USERS.approver);
    await messageUpdate(h, before.id, '1 of 2 approvals');
    expect((await h.bot.changeStore.get(before.id))?.status).toBe('pending');

    writeFileSync(path, 'rules:\n  - name: broken\n    approvals: many\n  - nme: x\n');
    const bad = await h.bot.reloadPolicy();
    expect(bad.ok).toBe(false);
    expect(h.logs.join('\n')).toMatch(
      /NOT reloaded, the rules in force stay \(1 rule, sha256 [0-9a-f]{64}\):\n {2}- line 2: rule 1 \("broken"\): match is missing/,
    );
    expect(h.logs.join('\n')).toContain('line 3: rule 1 ("broken"): approvals must be a whole number from 0 to 10');
    expect(await answerText(h, await h.command('policy'))).toContain('production needs one');
  });

  it('a bad file stops the bot at start, listing every problem with its line', async () => {
    const path = policyFile(
      'rules:\n  - name: a\n    match: { changes: [ip] }\n    approvals: 1\n  - name: b\n    match: {}\n    approvals: -1\n',
    );
    const started = startHarness({ env: { POLICY_FILE: path } });
    await expect(started).rejects.toThrow(
      /POLICY_FILE .* has 2 problems:\n {2}- line 3: rule 1 \("a"\): match.changes\[0\] must be one of .*\n {2}- line 7: rule 2 \("b"\): approvals must be a whole number/,
    );
    await expect(startHarness({ env: { POLICY_FILE: `${path}.missing` } })).rejects.toThrow(/does not exist/);
  });
});
