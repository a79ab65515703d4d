/**
 * After the API accepted a stop, over HTTP: the approval answers at once, the request's message
 * shows the service stopping (the service record goes in its thread), and once the simulator has
 * it stopped the message says so and the thread gets the final word. The simulator's clock is the test's: the service stays `stopping` until the test has seen
 * that shown, then the clock moves past the transition, so nothing waits for a fixed time.
 */
import { describe, expect, it } from 'vitest';
import type { ChangePlan } from '../../src/core/change/types.js';
import { ACTION_APPROVE } from '../../src/core/render/change.js';
import { CloudSimulator } from '../../src/simulator/server.js';
import { DEMO_IDS, DEMO_ORG_ID, demoServices } from '../../src/simulator/seed.js';
import { CHANNEL, KEY_ID, KEY_SECRET, textOf, useHarnesses, USERS, type Harness } from './harness.js';

const harness = useHarnesses();
const TRANSITION_MS = 60_000;

/** The simulator of the demo organization on a clock the test can move forward. */
async function simulatorWithClock() {
  const clock = { skewMs: 0 };
  const simulator = await CloudSimulator.start({
    keyId: KEY_ID,
    keySecret: KEY_SECRET,
    orgId: DEMO_ORG_ID,
    services: demoServices(),
    now: () => Date.now() + clock.skewMs,
    transitionMs: TRANSITION_MS,
  });
  return { simulator, clock };
}

/**
 * Files a stop of orders-prod the way the approval flow stores any planned request (the `stop`
 * command files the same plan: one state operation expecting `stopped`).
 */
async function fileStop(h: Harness) {
  const service = await h.bot.services.cloud.getService(DEMO_IDS.ordersProd, { fresh: true });
  if (!service) throw new Error('orders-prod is missing from the simulator');
  const plan: ChangePlan = {
    serviceId: service.id,
    serviceName: service.name,
    update: {},
    operations: [{ endpoint: 'state', body: { command: 'stop' }, expect: { state: 'stopped' } }],
    changes: [],
    warnings: [],
    before: {},
  };
  const filed = await h.bot.changeRequests.file({ channelId: CHANNEL, userId: USERS.requester, service, plan });
  if (!filed.ok || !filed.request.messageTs) throw new Error(`the stop was not filed: ${JSON.stringify(filed)}`);
  return { id: filed.request.id, messageTs: filed.request.messageTs };
}

describe('after the API accepted a stop', () => {
  it('shows the service stopping on the request, then replies in its thread once it is stopped', async () => {
    const { simulator, clock } = await simulatorWithClock();
    try {
      const h = await harness({ simulator, followSchedule: { firstMs: 20, factor: 2, maxMs: 100 } });
      const { id, messageTs } = await fileStop(h);
      const click = await h.click(ACTION_APPROVE, id, USERS.approver, messageTs);
      expect(click.status).toBe(200);

      const onRequest = (args: Record<string, unknown>) => args.ts === messageTs && args.channel === CHANNEL;
      const applied = await h.slack.waitFor('chat.update', (a) => onRequest(a) && textOf(a.blocks).includes('Applied'));
      const stopping = await h.slack.waitFor(
        'chat.update',
        (a) => onRequest(a) && textOf(a.blocks).includes('is stopping… (read'),
      );
      // The record stays, with the progress line under it.
      expect(textOf(stopping.args.blocks)).toContain('Applied');
      expect(textOf(stopping.args.blocks)).toContain(id);
      expect(simulator.service(DEMO_IDS.ordersProd)?.state).toBe('stopping');
      // The service record is in the request's thread, never at the top level of the channel.
      const record = await h.slack.waitFor('chat.postMessage', (a) => textOf(a.blocks).includes(`after change ${id}`));
      expect(record.args.thread_ts).toBe(messageTs);
      expect(record.args.channel).toBe(CHANNEL);
      expect(h.slack.callsOf('chat.postMessage', (a) => a.channel === CHANNEL && !a.thread_ts)).toHaveLength(1);
      expect(h.slack.callsOf('chat.postMessage', (a) => a.thread_ts === messageTs)).toHaveLength(1);

      clock.skewMs += TRANSITION_MS;
      const reply = await h.slack.waitFor(
        'chat.postMessage',
        (a) => a.thread_ts === messageTs && textOf(a.blocks).includes('is stopped'),
      );
      expect(textOf(reply.args.blocks)).toMatch(
        /orders-prod\* `3f9c2a71-[0-9a-f-]+` is stopped, \d+ s after the API accepted\./,
      );
      const settled = await h.slack.waitFor(
        'chat.update',
        (a) => onRequest(a) && textOf(a.blocks).includes('is stopped,'),
      );
      expect(textOf(settled.args.blocks)).toContain('Applied');
      expect(h.slack.calls.indexOf(applied)).toBeLessThan(h.slack.calls.indexOf(stopping));

      // The request message's last word is where the service ended up, not "stopping".
      const last = h.slack.callsOf('chat.update', onRequest).at(-1);
      expect(textOf(last?.args.blocks)).toContain('is stopped,');
      expect(textOf(last?.args.blocks)).not.toContain('stopping');
      // Two replies in the thread (the record, then how the follow ended), one settled follow,
      // and reads that went through the client; still one message at the top level.
      expect(h.slack.callsOf('chat.postMessage', (a) => a.thread_ts === messageTs)).toHaveLength(2);
      expect(h.slack.callsOf('chat.postMessage', (a) => a.channel === CHANNEL && !a.thread_ts)).toHaveLength(1);
      const outcomes = await h.bot.metrics?.followOutcomes.get();
      expect(outcomes?.values).toEqual([{ value: 1, labels: { outcome: 'settled' } }]);
      const reads = (await h.bot.metrics?.followReads.get())?.values[0]?.value ?? 0;
      expect(reads).toBeGreaterThanOrEqual(2);
      const gets = simulator.requests.filter(
        (r) => r.method === 'GET' && r.path.endsWith(`/services/${DEMO_IDS.ordersProd}`),
      );
      expect(gets.length).toBeGreaterThanOrEqual(reads);
      expect(h.bot.follower.following).toBe(0);
    } finally {
      // The harness stops the bot after the test; the simulator is this test's own.
      await simulator.close();
    }
  });
});
