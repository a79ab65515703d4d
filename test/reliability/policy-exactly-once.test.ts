/**
 * Exactly once with two approvals needed: 1,000 change requests under a policy that asks two
 * distinct approvers, each approved by both (one of them double-clicking) in simultaneous clicks
 * spread over two bot replicas sharing one Redis. Every request must lead to exactly one update
 * call, end with exactly those two approvers recorded, and every click be answered consistently.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ACTION_APPROVE } from '../../src/core/render/change.js';
import { syntheticServices } from '../../src/simulator/seed.js';
import { callCount, CHANNEL, startHarness, textOf, USERS, type Ack, type Harness } from '../e2e/harness.js';
import { deleteKeysWithPrefix } from '../support/redis.js';
import { expectOnePatchPerTrial } from './trials.js';

const TRIALS = 1_000;
const BATCH = 20;
const channelOf = (n: number) => (n % BATCH === 0 ? CHANNEL : `C0TRIAL${n % BATCH}`);
const QUIET = { LOG_LEVEL: 'info' };

const POLICY = `rules:
  - name: two of the on-call approvers
    match: {}
    approvals: 2
    approvers: [${USERS.approver}, ${USERS.second}]
`;

const dir = mkdtempSync(join(tmpdir(), 'chbot-policy-'));
const running: Harness[] = [];
afterAll(async () => {
  const prefixes = new Set(running.map((h) => h.keyPrefix));
  while (running.length > 0) await running.pop()?.stop();
  for (const prefix of prefixes) await deleteKeysWithPrefix(prefix);
  rmSync(dir, { recursive: true, force: true });
});

interface Trial {
  n: number;
  id: string;
  serviceId: string;
  clicks: Ack[];
}

describe('exactly once with two approvers across two replicas', () => {
  it(`applies each of ${TRIALS} two-approval requests exactly once under simultaneous clicks`, async () => {
    const path = join(dir, 'policy.yaml');
    writeFileSync(path, POLICY);
    const env = { ...QUIET, POLICY_FILE: path };
    const a = await startHarness({ services: syntheticServices(BATCH), env });
    running.push(a);
    const b = await startHarness({ simulator: a.simulator, slack: a.slack, keyPrefix: a.keyPrefix, env });
    running.push(b);
    a.slack.setMaxListeners(BATCH * 4);
    const replicas = [a, b];

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
      // Both approvers at once, one of them twice, on alternating replicas.
      const doubler = n % 2 === 0 ? USERS.approver : USERS.second;
      const clickers = [USERS.approver, USERS.second, doubler];
      const clicks = await Promise.all(
        // Clicked in the request's own channel, as Slack sends a click on its message.
        clickers.map((user, i) =>
          (replicas[(n + i) % 2] ?? a).click(ACTION_APPROVE, id, user, messageTs, { channel: channelOf(n) }),
        ),
      );
      for (const click of clicks) expect(click.status).toBe(200);
      await a.slack.waitFor('chat.postMessage', (args) => String(args.text).startsWith(`Applied change ${id} `), {
        after,
        timeoutMs: 15_000,
      });
      return { n, id, serviceId: service.id, clicks };
    };

    const trials: Trial[] = [];
    const started = performance.now();
    for (let first = 0; first < TRIALS; first += BATCH) {
      const { services } = await a.bot.services.cloud.listServices([], { fresh: true });
      const batch = Array.from({ length: Math.min(BATCH, TRIALS - first) }, (_, j) => {
        const service = services[(first + j) % BATCH];
        if (!service) throw new Error(`no service for trial ${first + j}`);
        return runTrial(first + j, service);
      });
      trials.push(...(await Promise.all(batch)));
    }
    const elapsed = performance.now() - started;

    // Exactly one PATCH per request, to its service.
    expectOnePatchPerTrial(a.simulator, trials);

    // Every request applied, with exactly the two approvers, the last of whom decided it.
    for (let i = 0; i < trials.length; i += 100) {
      const stored = await Promise.all(trials.slice(i, i + 100).map((t) => a.bot.changeStore.get(t.id)));
      const odd = stored.filter((r) => {
        const users = (r?.approvals ?? []).map((x) => x.userId).sort();
        return (
          r?.status !== 'applied' ||
          users.join() !== [USERS.approver, USERS.second].sort().join() ||
          r.decidedBy !== r.approvals?.at(-1)?.userId
        );
      });
      expect(
        odd.map((r) => ({ id: r?.id, status: r?.status, approvals: r?.approvals, decidedBy: r?.decidedBy })),
      ).toEqual([]);
    }

    // Per request: one click completed it silently, one was told it is recorded, the double click
    // was told it was already approved or already being applied or settled.
    const answered = trials.length * 2;
    await callCount(a.slack, 'response_url', answered, 15_000);
    const whispers = new Map(
      a.slack.callsOf('response_url').map((c) => [String(c.args.responseUrlId), textOf(c.args)]),
    );
    expect(whispers.size).toBe(answered);
    for (const trial of trials) {
      const told = trial.clicks.map((c) => whispers.get(c.responseUrlId));
      expect(
        told.filter((text) => text === undefined),
        `trial ${trial.n}`,
      ).toHaveLength(1);
      expect(
        told.filter((text) => text?.includes('is recorded')),
        `trial ${trial.n}`,
      ).toHaveLength(1);
      const rest = told.filter((text) => text !== undefined && !text.includes('is recorded'));
      for (const text of rest) expect(text).toMatch(/already approved|already settled|being applied right now/);
    }
    console.info(
      `two approvals exactly once: ${TRIALS} trials, ${TRIALS * 3} clicks on 2 replicas in ${Math.round(elapsed)} ms`,
    );
  }, 120_000);
});
