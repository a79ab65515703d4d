/**
 * Prometheus metrics (prom-client), one registry per bot so several bots in one process (tests,
 * replicas) never mix their counts. Labels only ever take values from small fixed sets (command
 * kinds, outcomes, HTTP methods and statuses, Slack method names and error codes): never a
 * service, user, channel or request id, so the number of series stays bounded.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { KEY_STATES, type KeyState } from './cloud/key-check.js';

export const CHANGE_OUTCOMES = ['requested', 'applied', 'failed', 'stale', 'rejected', 'cancelled', 'expired'] as const;
export type ChangeOutcomeLabel = (typeof CHANGE_OUTCOMES)[number];

export interface BotMetrics {
  readonly registry: Registry;
  readonly commands: Counter<'command'>;
  readonly commandsAnsweredInAck: Counter<'command'>;
  readonly changeRequests: Counter<'outcome'>;
  readonly cloudRequests: Counter<'method' | 'status'>;
  readonly cloudRequestSeconds: Histogram<'method'>;
  readonly cloudRateLimited: Counter;
  readonly throttleQueueLength: Gauge;
  readonly slackApiErrors: Counter<'method' | 'error'>;
  readonly slackRateLimited: Counter<'method'>;
  readonly slackRetries: Counter<'method'>;
  readonly ackSeconds: Histogram;
  readonly summaries: Counter<'result'>;
  readonly revertRecordsMissing: Counter;
  readonly followReads: Counter;
  readonly followOutcomes: Counter<'outcome'>;
  readonly pendingChangeRequests: Gauge;
  readonly cloudKey: Gauge<'state'>;
  readonly cloudKeys: Gauge<'organization' | 'state'>;
  readonly auditQueued: Gauge<'sink'>;
  readonly auditDelivered: Counter<'sink'>;
  readonly auditFailed: Counter<'sink'>;
  readonly auditDropped: Counter<'sink'>;
  readonly auditOutboxMax: Gauge;
}

export interface MetricsOptions {
  /** Process defaults (CPU, memory, event loop lag, GC); off where many bots share a process. */
  processDefaults?: boolean;
  /** Read at each scrape: how many change requests wait for approval (all replicas, from the store). */
  countPending?: () => Promise<number>;
  /** Read at each scrape: requests waiting for the client-side API throttle. */
  throttleQueue?: () => number;
  /** Read at each scrape: whether ClickHouse Cloud accepts the API key. */
  cloudKeyState?: () => KeyState;
  /** Read at each scrape: each organization's key (ORGANIZATIONS_FILE names them; few, fixed by the operator). */
  cloudKeyStates?: () => Record<string, KeyState>;
}

export function createMetrics(options: MetricsOptions = {}): BotMetrics {
  const registry = new Registry();
  if (options.processDefaults !== false) collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const { countPending, throttleQueue, cloudKeyState, cloudKeyStates } = options;
  return {
    registry,
    commands: new Counter({
      name: 'clickhouse_bot_commands_total',
      help: 'Slash commands received, by command',
      labelNames: ['command'],
      registers,
    }),
    commandsAnsweredInAck: new Counter({
      name: 'clickhouse_bot_commands_answered_in_ack_total',
      help: 'Slash commands the acknowledging thread answered itself with a ready answer (counted in commands_total too), by command',
      labelNames: ['command'],
      registers,
    }),
    changeRequests: new Counter({
      name: 'clickhouse_bot_change_requests_total',
      help: 'Change requests by outcome: requested, applied, failed, stale, rejected, cancelled, expired',
      labelNames: ['outcome'],
      registers,
    }),
    cloudRequests: new Counter({
      name: 'clickhouse_bot_cloud_requests_total',
      help: 'ClickHouse Cloud API requests by HTTP method and status (or "error" when no status came back)',
      labelNames: ['method', 'status'],
      registers,
    }),
    cloudRequestSeconds: new Histogram({
      name: 'clickhouse_bot_cloud_request_seconds',
      help: 'Duration of ClickHouse Cloud API requests (each attempt), in seconds',
      labelNames: ['method'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30],
      registers,
    }),
    cloudRateLimited: new Counter({
      name: 'clickhouse_bot_cloud_rate_limited_total',
      help: 'ClickHouse Cloud API answers 429 (rate limited)',
      registers,
    }),
    throttleQueueLength: new Gauge({
      name: 'clickhouse_bot_throttle_queue_length',
      help: 'Requests waiting for the client-side API throttle (10 per 10 s per key)',
      registers,
      ...(throttleQueue
        ? {
            collect(this: Gauge) {
              this.set(throttleQueue());
            },
          }
        : {}),
    }),
    slackApiErrors: new Counter({
      name: 'clickhouse_bot_slack_api_errors_total',
      help: 'Slack Web API calls that failed, by method and Slack error code',
      labelNames: ['method', 'error'],
      registers,
    }),
    slackRateLimited: new Counter({
      name: 'clickhouse_bot_slack_rate_limited_total',
      help: 'Slack Web API calls refused with 429 (rate limited), by method',
      labelNames: ['method'],
      registers,
    }),
    slackRetries: new Counter({
      name: 'clickhouse_bot_slack_retries_total',
      help: 'Slack Web API calls made again after a 429, once its Retry-After had passed, by method',
      labelNames: ['method'],
      registers,
    }),
    ackSeconds: new Histogram({
      name: 'clickhouse_bot_ack_seconds',
      help: 'From a Slack request or envelope handed to the app to its acknowledgement, in seconds',
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers,
    }),
    summaries: new Counter({
      name: 'clickhouse_bot_summaries_total',
      help: 'Summaries by result (posted, failed)',
      labelNames: ['result'],
      registers,
    }),
    revertRecordsMissing: new Counter({
      name: 'clickhouse_bot_revert_record_missing_total',
      help: 'Reverts that came due with their request gone from the store (the access could not be taken back)',
      registers,
    }),
    followReads: new Counter({
      name: 'clickhouse_bot_follow_reads_total',
      help: 'Reads of a service made to follow a change after the API accepted it (failed ones too)',
      registers,
    }),
    followOutcomes: new Counter({
      name: 'clickhouse_bot_follow_outcomes_total',
      help: 'Changes followed after the API accepted them, by how it ended: settled, elsewhere (failed, or moved by hand), still-moving',
      labelNames: ['outcome'],
      registers,
    }),
    pendingChangeRequests: new Gauge({
      name: 'clickhouse_bot_pending_change_requests',
      help: 'Change requests waiting for approval (all replicas; read from the store at scrape time)',
      registers,
      ...(countPending
        ? {
            async collect(this: Gauge) {
              // An unreachable store must not break the whole scrape: the gauge keeps its last value.
              const count = await countPending().catch(() => undefined);
              if (count !== undefined) this.set(count);
            },
          }
        : {}),
    }),
    cloudKey: new Gauge({
      name: 'clickhouse_bot_cloud_key',
      help: 'Whether ClickHouse Cloud accepts the API key: 1 for the current state (unchecked, accepted, refused, unreachable), 0 for the others',
      labelNames: ['state'],
      registers,
      ...(cloudKeyState
        ? {
            collect(this: Gauge<'state'>) {
              const now = cloudKeyState();
              for (const state of KEY_STATES) this.set({ state }, state === now ? 1 : 0);
            },
          }
        : {}),
    }),
    cloudKeys: new Gauge({
      name: 'clickhouse_bot_cloud_keys',
      help: "Each organization's API key (ORGANIZATIONS_FILE; `default` without it): 1 for its current state, 0 for the others",
      labelNames: ['organization', 'state'],
      registers,
      ...(cloudKeyStates
        ? {
            collect(this: Gauge<'organization' | 'state'>) {
              // An organization a reload removed leaves the series, not a stale 1.
              this.reset();
              for (const [organization, now] of Object.entries(cloudKeyStates()))
                for (const state of KEY_STATES) this.set({ organization, state }, state === now ? 1 : 0);
            },
          }
        : {}),
    }),
    auditQueued: new Gauge({
      name: 'clickhouse_bot_audit_events_queued',
      help: 'Audit events waiting for a sink (AUDIT_SINKS; sink = kind and host, or file name)',
      labelNames: ['sink'],
      registers,
    }),
    auditDelivered: new Counter({
      name: 'clickhouse_bot_audit_events_delivered_total',
      help: 'Audit events a sink accepted',
      labelNames: ['sink'],
      registers,
    }),
    auditFailed: new Counter({
      name: 'clickhouse_bot_audit_events_failed_total',
      help: 'Attempts to send an audit event that the sink refused or did not answer (retried)',
      labelNames: ['sink'],
      registers,
    }),
    auditDropped: new Counter({
      name: 'clickhouse_bot_audit_events_dropped_total',
      help: 'Audit events that will never reach a sink: skipped past AUDIT_OUTBOX_MAX or removed by AUDIT_RETENTION_DAYS first',
      labelNames: ['sink'],
      registers,
    }),
    auditOutboxMax: new Gauge({
      name: 'clickhouse_bot_audit_outbox_max',
      help: 'AUDIT_OUTBOX_MAX: the most audit events kept waiting for one sink',
      registers,
    }),
  };
}

/** Slack error codes are short snake_case words; anything else is folded so the label set stays small. */
export function slackErrorLabel(code: string): string {
  return /^[a-z0-9_]{1,48}$/.test(code) ? code : 'other';
}

/** Web API method names (chat.postMessage, views.open...), from the bot's own code. */
export function slackMethodLabel(method: string): string {
  return /^[a-zA-Z][a-zA-Z0-9.]{0,47}$/.test(method) ? method : 'other';
}

/** HTTP status as a label: the number for real answers, "error" for timeouts and dropped connections. */
export function statusLabel(status: number | undefined): string {
  return status === undefined || !Number.isInteger(status) || status < 100 || status > 599 ? 'error' : String(status);
}
