/**
 * Approvers told directly (issue 25): each person who can approve an unmet rule gets the request
 * by DM with working buttons, once; a click there applies it once and updates the channel's
 * message; notify: channel turns it off; a DM that fails never blocks the request.
 */
import { describe, expect, it } from 'vitest';
import { ACTION_APPROVE } from '../../src/core/render/change.js';
import { CHANNEL, requestChange, textOf, useHarnesses, USERS, withSharedBackends, type Harness } from './harness.js';
import { usePolicyFiles } from './policy-files.js';

const harness = useHarnesses({ nudgeTickMs: 50 });
const policyFile = usePolicyFiles();
const rule = (extra = '') =>
  `rules:\n  - name: two people\n    match: {}\n    approvals: 1\n    approvers: [U0APPROVER, U0SECOND]\n${extra}`;

const dmsTo = (h: Harness, userId: string) => h.slack.callsOf('chat.postMessage', (a) => a.channel === userId);

describe('approvers told directly', () => {
  it('each approver gets the request once, with buttons; a click in the DM applies it and updates the channel', async () => {
    const h = await harness({ env: { POLICY_FILE: policyFile(rule()) } });
    const { id } = await requestChange(h, 'rename orders-staging orders-stage');
    await h.bot.changeRequests.drain();
    for (const person of [USERS.approver, USERS.second]) {
      const dms = dmsTo(h, person);
      expect(dms).toHaveLength(1);
      expect(JSON.stringify(dms[0]?.args.blocks)).toContain(ACTION_APPROVE);
      expect(textOf(dms[0]?.args.blocks ?? [])).toContain(id);
    }
    expect(dmsTo(h, USERS.requester)).toHaveLength(0);
    await h.click(ACTION_APPROVE, id, USERS.second);
    await h.slack.waitFor(
      'chat.update',
      (a) => a.channel === CHANNEL && textOf(a.blocks).includes(id) && textOf(a.blocks).includes('Applied'),
    );
    expect(h.simulator.requests.filter((r) => r.method === 'PATCH')).toHaveLength(1);
  });

  it('two approvers clicking their DMs at once on two replicas of the bot: one PATCH, each DM sent once', async () => {
    await withSharedBackends(async ({ simulator, slack, keyPrefix }) => {
      const env = { POLICY_FILE: policyFile(rule()) };
      const shared = { simulator, slack, keyPrefix, env };
      const a = await harness(shared);
      const b = await harness(shared);
      const { id } = await requestChange(a, 'rename orders-staging orders-stage');
      await a.bot.changeRequests.drain();
      await Promise.all([a.click(ACTION_APPROVE, id, USERS.approver), b.click(ACTION_APPROVE, id, USERS.second)]);
      await slack.waitFor('chat.update', (x) => textOf(x.blocks).includes(id) && textOf(x.blocks).includes('Applied'));
      await a.bot.changeRequests.drain();
      await b.bot.changeRequests.drain();
      expect(simulator.requests.filter((r) => r.method === 'PATCH')).toHaveLength(1);
      for (const person of [USERS.approver, USERS.second]) expect(dmsTo(a, person)).toHaveLength(1);
    });
  });

  it('notify: channel sends no DM', async () => {
    const h = await harness({ env: { POLICY_FILE: policyFile(rule('    notify: channel\n')) } });
    await requestChange(h, 'rename orders-staging orders-stage');
    await h.bot.changeRequests.drain();
    expect([...dmsTo(h, USERS.approver), ...dmsTo(h, USERS.second)]).toHaveLength(0);
  });

  it('a DM that fails is logged and the request goes on', async () => {
    const h = await harness({ env: { POLICY_FILE: policyFile(rule()) } });
    h.slack.failingChannels.set(USERS.approver, 'user_disabled');
    const { id } = await requestChange(h, 'rename orders-staging orders-stage');
    await h.bot.changeRequests.drain();
    expect(dmsTo(h, USERS.second)).toHaveLength(1);
    expect(h.logs.join('\n')).toContain(`could not message ${USERS.approver}`);
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await h.slack.waitFor('chat.update', (a) => textOf(a.blocks).includes(id) && textOf(a.blocks).includes('Applied'));
  });
});
