/**
 * Exactly once under contention: 1,000 change requests, each approved by 3 or 4 simultaneous
 * clicks over HTTP, spread over two bot replicas sharing one Redis. Every request must lead to
 * exactly one update call, and every click but one must be told the request is already settled.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ACTION_APPROVE } from '../../src/core/render/change.js';
import { syntheticServices } from '../../src/simulator/seed.js';
import { callCount, CHANNEL, startHarness, textOf, USERS, type Ack, type Harness } from '../e2e/harness.js';
import { deleteKeysWithPrefix } from '../support/redis.js';
import { expectOnePatchPerTrial } from './trials.js';

const TRIALS = 1_000;
const BATCH = 20;
/** One service per request of a batch, so no two requests of a batch touch the same service. */
const SERVICES = BATCH;
/**
 * Posts to one channel are queued one after the other (Slack's pacing), so the requests of a batch
 * go to different channels: the test measures the approval path, not the queue.
 */
const channelOf = (n: number) => (n % BATCH === 0 ? CHANNEL : `C0TRIAL${n % BATCH}`);

/** Bolt's debug log of every request costs more CPU than the approvals themselves. */
const QUIET = { LOG_LEVEL: 'info' };

const running: Harness[] = [];
afterAll(async () => {
  const prefixes = new Set(running.map((h) => h.keyPrefix));
  while (running.length > 0) await running.pop()?.stop();
  // A thousand requests would otherwise sit in the shared Redis for their 7-day retention.
  for (const prefix of prefixes) await deleteKeysWithPrefix(prefix);
});

interface Trial {
  n: number;
  id: string;
  serviceId: string;
  clicks: Ack[];
}

describe('exactly once across two replicas', () => {
  it(`applies each of ${TRIALS} requests exactly once when 3-4 approvals race on two replicas`, async () => {
    const a = await startHarness({ services: syntheticServices(SERVICES), env: QUIET });
    running.push(a);
    const b = await startHarness({ simulator: a.simulator, slack: a.slack, keyPrefix: a.keyPrefix, env: QUIET });
    running.push(b);
    a.slack.setMaxListeners(BATCH * 4);
    const replicas = [a, b];
    const trials: Trial[] = [];

    const runTrial = async (
      n: number,
      service: Parameters<typeof a.bot.changeRequests.request>[0]['service'],
    ): Promise<Trial> => {
      const outcome = await a.bot.changeRequests.request({
        channelId: channelOf(n),
        userId: USERS.requester,
        service,
        intent: { name: `svc-trial-${n}` },
      });
      if (!outcome.ok) throw new Error(`trial ${n}: the request was refused: ${JSON.stringify(outcome)}`);
      const { id, messageTs } = outcome.request;
      const after = a.slack.calls.length;
      const count = 3 + (n % 2);
      const clicks = await Promise.all(
        Array.from({ length: count }, (_, i) => {
          const replica = replicas[(n + i) % 2] ?? a;
          // Clicked in the request's own channel, as Slack sends a click on its message.
          return replica.click(ACTION_APPROVE, id, i % 2 === 0 ? USERS.approver : USERS.second, messageTs, {
            channel: channelOf(n),
          });
        }),
      );
      for (const click of clicks) expect(click.status).toBe(200);
      // The result post is the last step of a successful approval.
      await a.slack.waitFor('chat.postMessage', (args) => String(args.text).startsWith(`Applied change ${id} `), {
        after,
        timeoutMs: 15_000,
      });
      return { n, id, serviceId: service.id, clicks };
    };

    const started = performance.now();
    for (let first = 0; first < TRIALS; first += BATCH) {
      const { services } = await a.bot.services.cloud.listServices([], { fresh: true });
      expect(services).toHaveLength(SERVICES);
      const batch = Array.from({ length: Math.min(BATCH, TRIALS - first) }, (_, j) => {
        const n = first + j;
        const service = services[n % SERVICES];
        if (!service) throw new Error(`no service for trial ${n}`);
        return runTrial(n, service);
      });
      trials.push(...(await Promise.all(batch)));
    }
    const elapsed = performance.now() - started;

    // Exactly one PATCH per request, carrying that request's name, to that request's service.
    expectOnePatchPerTrial(a.simulator, trials);

    // Every request ended applied, approved by exactly one of its clickers.
    for (let i = 0; i < trials.length; i += 100) {
      const stored = await Promise.all(trials.slice(i, i + 100).map((t) => a.bot.changeStore.get(t.id)));
      const notApplied = stored.filter((r) => r?.status !== 'applied').map((r) => `${r?.id}: ${r?.status}`);
      expect(notApplied).toEqual([]);
    }

    // Every other click was told privately that the request was being applied or already settled; the winner was not.
    const losers = trials.reduce((sum, t) => sum + t.clicks.length - 1, 0);
    await callCount(a.slack, 'response_url', losers, 15_000);
    const whispers = new Map(
      a.slack.callsOf('response_url').map((c) => [String(c.args.responseUrlId), textOf(c.args)]),
    );
    expect(whispers.size).toBe(losers);
    const wins: [number, number] = [0, 0];
    for (const trial of trials) {
      const told = trial.clicks.map((c) => whispers.get(c.responseUrlId)).filter((text) => text !== undefined);
      expect(told, `trial ${trial.n}`).toHaveLength(trial.clicks.length - 1);
      for (const text of told) expect(text).toMatch(/already settled|being applied right now/);
      const winner = trial.clicks.findIndex((c) => !whispers.has(c.responseUrlId));
      if ((trial.n + winner) % 2 === 0) wins[0] += 1;
      else wins[1] += 1;
    }
    // The races were real on both sides: each replica won some of them (the split is uneven, as
    // both replicas share one event loop here; what matters is that neither ever won twice).
    expect(Math.min(...wins), `wins per replica ${wins.join('/')}`).toBeGreaterThan(0);
    console.info(
      `exactly once: ${TRIALS} trials, ${trials.reduce((sum, t) => sum + t.clicks.length, 0)} clicks on 2 replicas in ${Math.round(elapsed)} ms, wins A/B ${wins.join('/')}`,
    );
  }, 80_000);
});
