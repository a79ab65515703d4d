/**
 * A service's live load from its Prometheus metrics (`GET …/services/{id}/prometheus`): queries
 * running now, memory in use per replica, the state and version the endpoint reports. The text is
 * parsed by parse-prometheus-text-format (in the adapter); its families are read here, leniently.
 * Scraping never wakes a service: an idle one answers ServiceInfo alone.
 */
import { z } from 'zod';

const Family = z.looseObject({
  name: z.string(),
  metrics: z.array(z.looseObject({ value: z.string(), labels: z.record(z.string(), z.string()).catch({}) })).catch([]),
});
const Families = z.array(z.unknown());

export interface ReplicaLoad {
  hostname: string;
  memoryBytes: number;
}

export interface ServiceLoad {
  /** Queries running now, over every replica that answered. */
  queries: number | undefined;
  replicas: ReplicaLoad[];
  /** `clickhouse_cluster_status` and `clickhouse_version` of ClickHouse_ServiceInfo. */
  state?: string;
  version?: string;
  /** Some replicas did not answer (`scrape="partial"`). */
  partial: boolean;
}

export function readLoad(parsed: unknown): ServiceLoad {
  const families = (Families.safeParse(parsed).data ?? []).flatMap((item) => {
    const family = Family.safeParse(item);
    return family.success ? [family.data] : [];
  });
  const series = (name: string) => families.find((family) => family.name === name)?.metrics ?? [];
  const number = (value: string) => (Number.isFinite(Number(value)) ? Number(value) : undefined);
  const queries = series('ClickHouseMetrics_Query').flatMap((metric) => number(metric.value) ?? []);
  const replicas = series('ClickHouseMetrics_MemoryTracking').flatMap((metric) => {
    const bytes = number(metric.value);
    return bytes === undefined ? [] : [{ hostname: metric.labels['hostname'] ?? '?', memoryBytes: bytes }];
  });
  const info = series('ClickHouse_ServiceInfo')[0]?.labels ?? {};
  const state = info['clickhouse_cluster_status'];
  const version = info['clickhouse_version'];
  return {
    queries: queries.length === 0 ? undefined : queries.reduce((sum, value) => sum + value, 0),
    replicas,
    ...(state ? { state } : {}),
    ...(version ? { version } : {}),
    partial: info['scrape'] === 'partial',
  };
}

/** States whose replicas run and answer a scrape; in any other the metrics are not read at all. */
const SCRAPED_STATES: readonly string[] = ['running', 'degraded', 'partially_running'];

/**
 * Whether the service's metrics may be read: only when replicas run. Reading never wakes a
 * service, and an idle or stopped one has no replica to answer. A record without a state is read.
 */
export function metricsReadable(service: { state?: string | undefined }): boolean {
  return SCRAPED_STATES.includes(service.state ?? 'running');
}
