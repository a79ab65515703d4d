/**
 * Reminders and escalation of waiting requests (issue 25), end to end: the real bot over signed
 * HTTP, real Redis, the simulator. The bot's clock is moved forward instead of waiting half an hour.
 */
import { describe, expect, it } from 'vitest';
import { ACTION_APPROVE } from '../../src/core/render/change.js';
import {
  answerText,
  startHarness,
  requestChange,
  textOf,
  useHarnesses,
  USERS,
  MINUTE,
  movableClock,
  messageTsOf,
  withSharedBackends,
} from './harness.js';
import type { FakeSlack } from './fake-slack.js';
import { usePolicyFiles } from './policy-files.js';

const harness = useHarnesses({ nudgeTickMs: 50 });
const policyFile = usePolicyFiles();

const threadPosts = (slack: FakeSlack, ts: string, word: string) =>
  slack.callsOf('chat.postMessage', (a) => a.thread_ts === ts && textOf(a.blocks).includes(word));

const ESCALATING =
  'rules:\n  - name: dbas first\n    match: {}\n    approvals: 1\n    approvers: [U0APPROVER]\n    remind: 10m\n    escalate: { after: 2h, to: [U0SECOND] }\n';

describe('reminders', () => {
  it('bumps a waiting request in its thread after remind, naming who can still approve, at most 3 times', async () => {
    const clock = movableClock();
    const h = await harness({ clock: clock.now, env: { POLICY_FILE: policyFile(ESCALATING) } });
    const { id } = await requestChange(h, 'rename orders-staging orders-stage');
    const ts = await messageTsOf(h, id);
    clock.advance(11 * MINUTE);
    const first = await h.slack.waitFor(
      'chat.postMessage',
      (a) => a.thread_ts === ts && textOf(a.blocks).includes('still waits'),
    );
    expect(textOf(first.args.blocks)).toContain('after 11m');
    // Read on its own (a notification), it says what waits: the service and the change.
    expect(textOf(first.args.blocks)).toMatch(/\(\*[^*]+\* `[0-9a-f-]+`: [^)]+\) still waits/);
    expect(textOf(first.args.blocks)).toContain('<@U0APPROVER>');
    for (const minutes of [10, 10, 10, 10]) {
      clock.advance(minutes * MINUTE);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await expect.poll(() => threadPosts(h.slack, ts, 'still waits').length).toBe(3);
    expect(textOf(threadPosts(h.slack, ts, 'still waits')[2]?.args.blocks ?? [])).toContain('last reminder');
  });

  it('is said once across two replicas and not again after a restart', async () => {
    await withSharedBackends(async ({ clock, simulator, slack, keyPrefix }) => {
      const shared = {
        clock: clock.now,
        simulator,
        slack,
        keyPrefix,
        env: { POLICY_FILE: policyFile(ESCALATING) },
      };
      const a = await harness(shared);
      const b = await startHarness(shared);
      const { id } = await requestChange(a, 'rename orders-staging orders-stage');
      const ts = await messageTsOf(a, id);
      clock.advance(11 * MINUTE);
      await slack.waitFor('chat.postMessage', (x) => x.thread_ts === ts && textOf(x.blocks).includes('still waits'));
      await b.stop();
      const c = await harness(shared);
      await c.bot.changeRequests.drain();
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(threadPosts(slack, ts, 'still waits')).toHaveLength(1);
    });
  });
});

describe('escalation', () => {
  it('lets the escalate.to people approve once the rule has waited escalate.after, and says so', async () => {
    const clock = movableClock();
    const env = { POLICY_FILE: policyFile(ESCALATING), CHANGE_TTL_SECONDS: String(4 * 3600) };
    const h = await harness({ clock: clock.now, env });
    const { id, posted } = await requestChange(h, 'rename orders-staging orders-stage');
    expect(textOf(posted.args.blocks)).toContain('escalates to <@U0SECOND> after 2h');
    const ts = await messageTsOf(h, id);
    const early = await h.click(ACTION_APPROVE, id, USERS.second);
    const refusal = await answerText(h, early);
    expect(refusal).toContain('no_entry_sign');
    expect(refusal).not.toContain('Approved');
    clock.advance(2 * 60 * MINUTE + MINUTE);
    const said = await h.slack.waitFor(
      'chat.postMessage',
      (a) => a.thread_ts === ts && textOf(a.blocks).includes('may approve it now too'),
    );
    expect(textOf(said.args.blocks)).toContain('<@U0SECOND>');
    await h.click(ACTION_APPROVE, id, USERS.second);
    await h.slack.waitFor('chat.update', (a) => textOf(a.blocks).includes(id) && textOf(a.blocks).includes('Applied'));
  });
});

describe('expiry', () => {
  it('ends a request nobody decided when its time is up: the message says Expired and the requester is told, once', async () => {
    const clock = movableClock();
    const h = await harness({ clock: clock.now });
    const { id } = await requestChange(h, 'rename orders-staging orders-stage');
    clock.advance(61 * MINUTE);
    await h.slack.waitFor('chat.update', (a) => textOf(a.blocks).includes(id) && textOf(a.blocks).includes('Expired'));
    await h.slack.waitFor('chat.postMessage', (a) => a.channel === USERS.requester && textOf(a.blocks).includes(id));
    expect((await h.bot.changeStore.get(id))?.status).toBe('expired');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(h.slack.callsOf('chat.postMessage', (a) => a.channel === USERS.requester)).toHaveLength(1);
  });

  it('two replicas sweeping at once end it once: one Expired record, one DM to the requester', async () => {
    await withSharedBackends(async ({ clock, simulator, slack, keyPrefix }) => {
      const shared = { clock: clock.now, simulator, slack, keyPrefix };
      const a = await harness(shared);
      const b = await harness(shared);
      const { id } = await requestChange(a, 'rename orders-staging orders-stage');
      clock.advance(61 * MINUTE);
      await slack.waitFor('chat.postMessage', (x) => x.channel === USERS.requester && textOf(x.blocks).includes(id));
      await a.bot.changeRequests.drain();
      await b.bot.changeRequests.drain();
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(slack.callsOf('chat.postMessage', (x) => x.channel === USERS.requester)).toHaveLength(1);
      const audit = await a.bot.changeStore.readAudit({ limit: 20 });
      expect(audit.filter((entry) => entry.changeId === id && entry.action === 'expired')).toHaveLength(1);
    });
  });
});
