/**
 * A service's live load from its Prometheus metrics (`GET …/services/{id}/prometheus`): queries
 * running now, memory in use per replica, the state and version the endpoint reports. The text is
 * parsed by parse-prometheus-text-format (in the adapter); its families are read here, leniently.
 * Scraping never wakes a service: an idle one answers ServiceInfo alone.
 */
import { z } from 'zod';
import type { CloudApiError } from './api-error.js';
import type { ServiceRecord } from './schema.js';

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

/**
 * What about a change makes its service's live load worth showing approvers before they decide,
 * declared by each kind of change (`loadConcern` in core/change/kinds/kind.ts): a stop, a
 * delete, replicas or memory lowered, idle scaling turned on.
 */
export interface LoadConcern {
  /** The change ends the queries running now (a stop, a delete): running queries are warned about. */
  endsQueries?: boolean;
  /** Memory per replica once applied (GB): memory in use above it is warned about. */
  newReplicaMemoryGb?: number;
}

/** Several kinds' concerns as one: queries end if any part ends them; the smallest new size counts. */
export function combinedConcern(concerns: ReadonlyArray<LoadConcern | undefined>): LoadConcern | undefined {
  const present = concerns.filter((concern): concern is LoadConcern => concern !== undefined);
  if (present.length === 0) return undefined;
  const sizes = present.flatMap((concern) => concern.newReplicaMemoryGb ?? []);
  return {
    ...(present.some((concern) => concern.endsQueries) ? { endsQueries: true } : {}),
    ...(sizes.length > 0 ? { newReplicaMemoryGb: Math.min(...sizes) } : {}),
  };
}

/** The figures people read from a load: queries running, the busiest replica's memory and its size. */
export interface LoadFigures {
  queries?: number;
  /** Memory in use on the replica using the most, in bytes. */
  busiestMemoryBytes?: number;
  /** Memory per replica the service runs with now (GB): a scaling schedule's, else its own maximum. */
  replicaSizeGb?: number;
  /** Some replicas did not answer. */
  partial?: true;
}

/** Memory per replica the service runs with now: a scaling schedule's, else its own maximum. */
export function replicaSizeGb(service: ServiceRecord): number | undefined {
  return service.currentScaling?.effectiveMaxReplicaMemoryGb ?? service.maxReplicaMemoryGb ?? service.replicaMemoryGb;
}

export function loadFigures(load: ServiceLoad, sizeGb: number | undefined): LoadFigures {
  const busiest = load.replicas.reduce<number | undefined>(
    (most, replica) => (most === undefined || replica.memoryBytes > most ? replica.memoryBytes : most),
    undefined,
  );
  return {
    ...(load.queries !== undefined ? { queries: load.queries } : {}),
    ...(busiest !== undefined ? { busiestMemoryBytes: busiest } : {}),
    ...(sizeGb !== undefined ? { replicaSizeGb: sizeGb } : {}),
    ...(load.partial ? { partial: true as const } : {}),
  };
}

/** Why the load could not be read: the API error's kind, or `slow` (not read within the bound). */
export type LoadReadFailure = CloudApiError['kind'] | 'slow' | 'unexpected';

export type LiveLoadNote =
  /** Read `readAt` (app clock); the request was asked at `askedAt`. */
  | ({ kind: 'read'; readAt: number; askedAt: number } & LoadFigures)
  | { kind: 'failed'; why: LoadReadFailure; status?: number; afterMs?: number };
