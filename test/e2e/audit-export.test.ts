/**
 * Audit export end to end: a change requested, approved and applied over signed HTTP (real Redis,
 * the simulator, FakeSlack) reaches a webhook receiver, verified by its signature, and a JSON
 * Lines file; a policy reload is an event too. No secret and no webhook path reach a log or a metric.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AuditEvent } from '../../src/core/audit/export.js';
import { createLogger } from '../../src/log.js';
import { ACTION_APPROVE } from '../../src/core/render/change.js';
import { DEMO_IDS, DEMO_ORG_ID } from '../../src/simulator/seed.js';
import { startAuditReceiver, type AuditReceiver } from '../support/audit-receiver.js';
import { appliedMessage, CHANNEL, requestChange, useHarnesses, USERS } from './harness.js';

const SECRET = 'e2e-audit-webhook-secret-0123456789';
const harness = useHarnesses();
let receiver: AuditReceiver;
let dir: string;

beforeAll(async () => {
  receiver = await startAuditReceiver(SECRET);
  dir = await mkdtemp(join(tmpdir(), 'audit-e2e-'));
});
afterAll(async () => {
  await receiver.close();
  await rm(dir, { recursive: true, force: true });
});

async function fileEvents(path: string): Promise<AuditEvent[]> {
  const text = await readFile(path, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as AuditEvent);
}

describe('audit export', () => {
  it('sends a change requested, approved and applied to a webhook and a file, then a policy reload', async () => {
    const path = join(dir, 'audit.jsonl');
    const logs: string[] = [];
    const logger = createLogger({ level: 'debug', sink: (line) => logs.push(line) });
    const h = await harness({
      logger,
      env: { AUDIT_SINKS: `webhook:${receiver.url},file:${path}`, AUDIT_WEBHOOK_SECRET: SECRET },
    });
    const { id } = await requestChange(h, 'rename orders-staging orders stage');
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await appliedMessage(h, id);

    const ofRequest = () => receiver.accepted.filter((event) => event.requestId === id);
    await receiver.until(() => ofRequest().some((event) => event.type === 'applied'));
    expect(ofRequest().map((event) => event.type)).toEqual(['requested', 'approved', 'applied']);
    const [requested, approved, applied] = ofRequest();
    expect(requested).toMatchObject({
      organization: DEMO_ORG_ID,
      service: { id: DEMO_IDS.ordersStaging, name: 'orders-staging' },
      actor: USERS.requester,
      channel: CHANNEL,
    });
    expect(approved?.actor).toBe(USERS.approver);
    expect(applied?.details).toMatchObject({ update: { name: 'orders stage' } });
    expect(Date.parse(applied?.at ?? '')).toBeGreaterThan(Date.now() - 60_000);
    expect(receiver.badSignatures).toBe(0);

    // The file holds the same events, same ids, same order.
    await vi.waitFor(async () => expect((await fileEvents(path)).length).toBeGreaterThanOrEqual(3), {
      timeout: 5_000,
      interval: 20,
    });
    expect((await fileEvents(path)).map((event) => event.id)).toEqual(ofRequest().map((event) => event.id));

    await h.bot.reloadPolicy();
    await receiver.until(() => receiver.accepted.some((event) => event.type === 'policy-reloaded'));
    expect(receiver.accepted.at(-1)).toMatchObject({ type: 'policy-reloaded', actor: 'system', requestId: null });

    // Counted once acknowledged, just after the receiver answered.
    const sink = `webhook:${new URL(receiver.url).host}`;
    const scrape = async () => (await h.bot.metrics?.registry.metrics()) ?? '';
    await vi.waitFor(
      async () => expect(await scrape()).toContain(`clickhouse_bot_audit_events_delivered_total{sink="${sink}"} 4`),
      {
        timeout: 5_000,
        interval: 20,
      },
    );
    const metrics = await scrape();
    expect(metrics).toMatch(/clickhouse_bot_audit_events_queued\{sink="file:audit.jsonl"\} \d/);
    expect(metrics).not.toContain('secret-token-in-path');
    // The secret is one the logger knows: even an error message quoting it is redacted.
    logger.error(`a library said: bad key ${SECRET}`);
    expect(logs.at(-1)).toContain('bad key [redacted]');
    expect(logs.join('\n')).not.toContain(SECRET);
  });

  it('two replicas, the receiver down during the change: it gets each event once, in order, when it is back', async () => {
    const env = { AUDIT_SINKS: `webhook:${receiver.url}`, AUDIT_WEBHOOK_SECRET: SECRET };
    const h = await harness({ env });
    const other = await harness({ env, keyPrefix: h.keyPrefix, simulator: h.simulator, slack: h.slack });
    receiver.down = true;
    const refusedBefore = receiver.refused;
    const { id } = await requestChange(h, 'rename sandbox-dev sandbox two');
    await other.click(ACTION_APPROVE, id, USERS.approver);
    await appliedMessage(h, id);
    await receiver.until(() => receiver.refused >= refusedBefore + 2);
    receiver.down = false;

    const ofRequest = () => receiver.accepted.filter((event) => event.requestId === id);
    await receiver.until(() => ofRequest().some((event) => event.type === 'applied'));
    expect(ofRequest().map((event) => event.type)).toEqual(['requested', 'approved', 'applied']);
    expect(new Set(ofRequest().map((event) => event.id)).size).toBe(3);
  });
});
