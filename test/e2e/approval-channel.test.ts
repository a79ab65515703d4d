/**
 * Requests decided in an approval channel (issue 25, "Where the request goes"), end to end: a rule
 * names `channel`; the request with its buttons goes there and the requester's channel gets its
 * record without buttons; both follow the request; a channel the bot is not in is said, never
 * half-posted.
 */
import { describe, expect, it } from 'vitest';
import { ACTION_APPROVE } from '../../src/core/render/change.js';
import { answerText, CHANNEL, MINUTE, movableClock, textOf, useHarnesses, USERS } from './harness.js';
import { usePolicyFiles } from './policy-files.js';

const DBAS = 'C0DBAS';
const harness = useHarnesses({ nudgeTickMs: 50 });
const policyFile = usePolicyFiles();
const POLICY = `rules:\n  - name: dbas decide\n    match: {}\n    approvals: 1\n    channel: ${DBAS}\n`;

const hasButtons = (blocks: unknown) => JSON.stringify(blocks).includes(ACTION_APPROVE);

describe('an approval channel', () => {
  it('gets the request with its buttons; the requester channel a record without them; both say Applied', async () => {
    const h = await harness({ env: { POLICY_FILE: policyFile(POLICY) } });
    const ack = await h.command('rename orders-staging orders-stage');
    const inDbas = await h.slack.waitFor('chat.postMessage', (a) => a.channel === DBAS);
    const inChannel = await h.slack.waitFor('chat.postMessage', (a) => a.channel === CHANNEL);
    expect(hasButtons(inDbas.args.blocks)).toBe(true);
    expect(hasButtons(inChannel.args.blocks)).toBe(false);
    expect(textOf(inChannel.args.blocks)).toContain(`waiting for approval in <#${DBAS}>`);
    const id = /CR-[0-9A-F]{10}/.exec(textOf(inDbas.args.blocks))?.[0] ?? '';
    expect(await answerText(h, ack)).toContain(id);
    // `pending` lists it in both channels: where it was asked and where it is decided.
    for (const channel of [CHANNEL, DBAS])
      expect((await h.bot.changeStore.listPending(channel, Date.now())).map((r) => r.id)).toStrictEqual([id]);
    await h.click(ACTION_APPROVE, id, USERS.approver);
    for (const channel of [DBAS, CHANNEL])
      await h.slack.waitFor(
        'chat.update',
        (a) => a.channel === channel && textOf(a.blocks).includes(id) && textOf(a.blocks).includes('Applied'),
      );
    expect(h.simulator.requests.filter((r) => r.method === 'PATCH')).toHaveLength(1);
  });

  it('not joined: the requester is told which channel to invite the bot to, and nothing is posted', async () => {
    const h = await harness({ env: { POLICY_FILE: policyFile(POLICY) } });
    h.slack.failingChannels.set(DBAS, 'not_in_channel');
    const answer = await answerText(h, await h.command('rename orders-staging orders-stage'));
    expect(answer).toContain(`not a member of <#${DBAS}>`);
    expect(answer).toContain('/invite');
    expect(h.slack.callsOf('chat.postMessage', (a) => a.channel === CHANNEL)).toHaveLength(0);
    expect(await h.bot.changeStore.listPending(CHANNEL, Date.now())).toHaveLength(0);
  });

  it("withdraws the approval channel's message when the requester's channel cannot take its record", async () => {
    const h = await harness({ env: { POLICY_FILE: policyFile(POLICY) } });
    h.slack.failingChannels.set(CHANNEL, 'not_in_channel');
    await answerText(h, await h.command('rename orders-staging orders-stage'));
    const withdrawn = await h.slack.waitFor('chat.update', (a) => a.channel === DBAS);
    expect(textOf(withdrawn.args.blocks)).toContain('was withdrawn');
    expect(hasButtons(withdrawn.args.blocks)).toBe(false);
  });

  it("bumps the approval channel's thread, where the approvers are, not the requester's", async () => {
    const clock = movableClock();
    const h = await harness({ clock: clock.now, env: { POLICY_FILE: policyFile(POLICY) } });
    await h.command('rename orders-staging orders-stage');
    const inDbas = await h.slack.waitFor('chat.postMessage', (a) => a.channel === DBAS);
    await h.slack.waitFor('chat.postMessage', (a) => a.channel === CHANNEL);
    const id = /CR-[0-9A-F]{10}/.exec(textOf(inDbas.args.blocks))?.[0] ?? '';
    await expect.poll(async () => (await h.bot.changeStore.get(id))?.approvalTs).toBeDefined();
    const approvalTs = (await h.bot.changeStore.get(id))?.approvalTs;
    clock.advance(31 * MINUTE);
    const bumped = await h.slack.waitFor('chat.postMessage', (a) => textOf(a.blocks).includes('still waits'));
    expect(bumped.args.channel).toBe(DBAS);
    expect(bumped.args.thread_ts).toBe(approvalTs);
  });
});
