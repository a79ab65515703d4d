/**
 * `GET …/services/{serviceId}/prometheus` (official OpenAPI document: "Returns prometheus metrics
 * for a service", `text/plain`), as a pure function over a service record and its load.
 *
 * Not documented: the exact series. These follow what ClickHouse Cloud's endpoint is known to
 * serve: every series carries clickhouse_org, clickhouse_service and clickhouse_service_name,
 * per-replica series also hostname; `ClickHouse_ServiceInfo` says the state and version. Scraping
 * never wakes a service, so an idle or stopped one (any state without running replicas) answers
 * with ServiceInfo alone. The load is derived from the clock and the service id (so every scrape
 * at the same moment agrees) unless a test set it.
 */
import { createHash } from 'node:crypto';
import type { Outcome, ServiceRecordLike } from './records.js';

export interface ServiceLoad {
  /** Queries running right now, over the whole service. */
  queries: number;
  /** Bytes in use on each replica. */
  memoryBytesPerReplica: number;
}

/** States in which replicas run and answer a scrape; the others leave ServiceInfo alone. */
const SCRAPED_STATES = ['running', 'degraded', 'partially_running'];
/** Not documented: a degraded service answers from some replicas only ("partial"). */
const PARTIAL_STATES = ['degraded', 'partially_running'];
const GIB = 1024 ** 3;
const MINUTE_MS = 60_000;

/** A number in [0, 1) fixed by its inputs. */
function unit(...parts: string[]): number {
  return createHash('sha256').update(parts.join('\u0000')).digest().readUInt32BE(0) / 2 ** 32;
}

function numberOf(value: unknown): number | undefined {
  return typeof value === 'number' ? value : undefined;
}

/** The scaling in force: currentScaling's effective values (a schedule may set them), else the base. */
function effective(record: ServiceRecordLike): { replicas: number; memoryGb: number } {
  const current = (record['currentScaling'] ?? {}) as Record<string, unknown>;
  const replicas =
    numberOf(current['effectiveMinReplicas']) ??
    numberOf(record['numReplicas']) ??
    numberOf(record['minReplicas']) ??
    3;
  const memoryGb =
    numberOf(current['effectiveMaxReplicaMemoryGb']) ??
    numberOf(record['maxReplicaMemoryGb']) ??
    numberOf(record['replicaMemoryGb']) ??
    8;
  return { replicas, memoryGb };
}

/** The load at `now` when no test set one: changes each minute, between 0 and 11 queries, 20–70 % of memory. */
export function defaultLoad(record: ServiceRecordLike, now: number): ServiceLoad {
  const minute = String(Math.floor(now / MINUTE_MS));
  const { memoryGb } = effective(record);
  return {
    queries: Math.floor(unit(record.id, 'queries', minute) * 12),
    memoryBytesPerReplica: Math.round(memoryGb * GIB * (0.2 + 0.5 * unit(record.id, 'memory', minute))),
  };
}

/** `filtered_metrics` is a boolean in a string (the document's `format: boolean`); absent means false. */
export function parseFilteredMetrics(value: string | null): Outcome<boolean> {
  if (value === null || value === 'false') return { ok: true, value: false };
  if (value === 'true') return { ok: true, value: true };
  return { ok: false, message: `query.filtered_metrics: 'must be boolean'` };
}

const escapeLabel = (value: string): string => value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

function labels(pairs: Record<string, string>): string {
  return `{${Object.entries(pairs)
    .map(([name, value]) => `${name}="${escapeLabel(value)}"`)
    .join(',')}}`;
}

interface Family {
  name: string;
  type: 'gauge' | 'counter';
  help: string;
  /** The value on replica `index` of `count`. */
  value: (index: number, count: number) => number;
}

/** The families every scrape of a running service holds, and the ones only an unfiltered scrape adds. */
function families(record: ServiceRecordLike, load: ServiceLoad, now: number, filtered: boolean): Family[] {
  // Counters grow with the clock from the epoch at a rate fixed by the service, so they never go back.
  const perMinute = 20 + Math.floor(unit(record.id, 'rate') * 200);
  const total = Math.floor((now / MINUTE_MS) * perMinute);
  const share = (amount: number, index: number, count: number): number =>
    Math.floor(amount / count) + (index < amount % count ? 1 : 0);
  const chosen: Family[] = [
    {
      name: 'ClickHouseMetrics_Query',
      type: 'gauge',
      help: 'Number of executing queries',
      value: (i, n) => share(load.queries, i, n),
    },
    {
      name: 'ClickHouseMetrics_MemoryTracking',
      type: 'gauge',
      help: 'Total amount of memory (bytes) allocated by the server.',
      value: () => load.memoryBytesPerReplica,
    },
    {
      name: 'ClickHouseProfileEvents_Query',
      type: 'counter',
      help: 'Number of queries to be interpreted and potentially executed.',
      value: (i, n) => share(total, i, n),
    },
    {
      name: 'ClickHouseProfileEvents_FailedQuery',
      type: 'counter',
      help: 'Number of failed queries.',
      value: (i, n) => share(Math.floor(total / 97), i, n),
    },
  ];
  if (filtered) return chosen;
  return [
    ...chosen,
    {
      name: 'ClickHouseMetrics_TCPConnection',
      type: 'gauge',
      help: 'Number of connections to TCP server (clients with native interface)',
      value: (i, n) => share(load.queries + 2, i, n),
    },
  ];
}

/** The replicas' host names, as the real endpoint labels them (not documented: the exact form). */
function hostnames(record: ServiceRecordLike, count: number): string[] {
  const stem = record.id.split('-')[0] ?? record.id;
  return Array.from({ length: count }, (_, index) => `c-${stem}-server-${index}`);
}

/** The exposition text of a service at `now` under `load`. */
export function prometheusText(
  orgId: string,
  record: ServiceRecordLike,
  load: ServiceLoad,
  now: number,
  filtered: boolean,
): string {
  const state = record.state ?? 'running';
  const base = { clickhouse_org: orgId, clickhouse_service: record.id, clickhouse_service_name: record.name };
  const scraped = SCRAPED_STATES.includes(state);
  const partial = PARTIAL_STATES.includes(state);
  const info = labels({
    ...base,
    clickhouse_cluster_status: state,
    clickhouse_version: typeof record['clickhouseVersion'] === 'string' ? record['clickhouseVersion'] : '',
    scrape: scraped && !partial ? 'full' : 'partial',
  });
  const lines = [
    '# HELP ClickHouse_ServiceInfo Information about service, including cluster status and ClickHouse version',
    '# TYPE ClickHouse_ServiceInfo untyped',
    `ClickHouse_ServiceInfo${info} 1`,
  ];
  if (!scraped) return `${lines.join('\n')}\n`;
  const { replicas } = effective(record);
  // A partial scrape is answered by half the replicas (at least one).
  const answering = hostnames(record, partial ? Math.max(1, Math.floor(replicas / 2)) : replicas);
  for (const family of families(record, load, now, filtered)) {
    lines.push(`# HELP ${family.name} ${family.help}`, `# TYPE ${family.name} ${family.type}`);
    answering.forEach((hostname, index) => {
      lines.push(`${family.name}${labels({ ...base, hostname })} ${family.value(index, answering.length)}`);
    });
  }
  return `${lines.join('\n')}\n`;
}
