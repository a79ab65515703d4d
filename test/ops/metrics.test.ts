/** The metric names the issue fixes, their labels, and that nothing unbounded becomes a label. */
import { describe, expect, it } from 'vitest';
import { createMetrics, slackErrorLabel, statusLabel } from '../../src/metrics.js';

const NAMES = [
  'clickhouse_bot_commands_total',
  'clickhouse_bot_commands_answered_in_ack_total',
  'clickhouse_bot_change_requests_total',
  'clickhouse_bot_cloud_requests_total',
  'clickhouse_bot_cloud_request_seconds',
  'clickhouse_bot_cloud_rate_limited_total',
  'clickhouse_bot_throttle_queue_length',
  'clickhouse_bot_slack_api_errors_total',
  'clickhouse_bot_slack_rate_limited_total',
  'clickhouse_bot_slack_retries_total',
  'clickhouse_bot_ack_seconds',
  'clickhouse_bot_summaries_total',
  'clickhouse_bot_revert_record_missing_total',
  'clickhouse_bot_follow_reads_total',
  'clickhouse_bot_follow_outcomes_total',
  'clickhouse_bot_pending_change_requests',
  'clickhouse_bot_cloud_key',
  'clickhouse_bot_cloud_keys',
  'clickhouse_bot_audit_events_queued',
  'clickhouse_bot_audit_events_delivered_total',
  'clickhouse_bot_audit_events_failed_total',
  'clickhouse_bot_audit_events_dropped_total',
  'clickhouse_bot_audit_outbox_max',
];

describe('metrics', () => {
  it('registers exactly the named metrics besides the process defaults', async () => {
    const metrics = createMetrics();
    const names = (await metrics.registry.getMetricsAsJSON()).map((m) => m.name);
    expect(names.filter((n) => n.startsWith('clickhouse_bot_')).sort()).toEqual([...NAMES].sort());
    expect(names).toContain('process_cpu_user_seconds_total');
    expect(names).toContain('nodejs_eventloop_lag_seconds');
  });

  it('reads the pending count and the throttle queue at scrape time, and keeps the last count when the store fails', async () => {
    let pending: number | Error = 3;
    const metrics = createMetrics({
      processDefaults: false,
      countPending: () => (pending instanceof Error ? Promise.reject(pending) : Promise.resolve(pending)),
      throttleQueue: () => 7,
    });
    const scrape = () => metrics.registry.metrics();
    expect(await scrape()).toMatch(/^clickhouse_bot_pending_change_requests 3$/m);
    expect(await scrape()).toMatch(/^clickhouse_bot_throttle_queue_length 7$/m);
    pending = new Error('Redis is down');
    expect(await scrape()).toMatch(/^clickhouse_bot_pending_change_requests 3$/m);
  });

  it('folds label values that are not short codes', () => {
    expect(slackErrorLabel('channel_not_found')).toBe('channel_not_found');
    expect(slackErrorLabel('Bad error from <@U123>')).toBe('other');
    expect(slackErrorLabel('x'.repeat(200))).toBe('other');
    expect(statusLabel(503)).toBe('503');
    expect(statusLabel(undefined)).toBe('error');
    expect(statusLabel(42)).toBe('error');
  });
});
