/**
 * GET /v1/organizations/{org}/usageCost in the simulator: plausible, deterministic daily costs in
 * ClickHouse Credits, per service and per shared data warehouse. The same day of the same service
 * always costs the same (a hash of its id and the date, no randomness), so tests and screenshots
 * can name figures. Rules, for people reading the demo's numbers:
 * - compute follows memory × replicas (the current scaling, mid-range), and the hours it runs:
 *   every hour for an always-on service, a day-dependent share for one that idles, none when
 *   stopped;
 * - storage grows slowly with the days since the service was created; a warehouse whose data
 *   several services share is billed once, on a `datawarehouse` row, and its services' own rows
 *   carry no storage;
 * - backup is a tenth of storage, transfer a little day-dependent amount;
 * - the last two days (yesterday and today) are not `locked` yet; today counts the hours so far.
 * Dates are UTC days, both ends included, at most 31 days per call (the real API's limit).
 */
import { createHash } from 'node:crypto';
import { currentScalingOf } from './capacity.js';
import type { Outcome, ServiceRecordLike } from './records.js';

export const USAGE_COST_MAX_DAYS = 31;

const DAY_MS = 86_400_000;
/** Credits per GB of memory per hour of compute: in the range of the public price list. */
const COMPUTE_CHC_PER_GB_HOUR = 0.011;
/** Credits per day of a service's stored data on its first day. */
const STORAGE_BASE_CHC = 1.2;

export interface UsageCostRow {
  date: string;
  entityType: 'service' | 'datawarehouse' | 'clickpipe';
  entityId: string;
  entityName: string;
  serviceId: string | null;
  dataWarehouseId: string | null;
  totalCHC: number;
  locked: boolean;
  metrics: Record<string, number>;
}

export interface UsageCostResult {
  grandTotalCHC: number;
  costs: UsageCostRow[];
}

const dayText = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** A stable number in [0, 1) for this service (or warehouse), day and purpose. */
function noise(id: string, date: string, purpose: string): number {
  const digest = createHash('sha256').update(`${id}|${date}|${purpose}`).digest();
  return digest.readUInt32BE(0) / 2 ** 32;
}

const round = (value: number) => Math.round(value * 10_000) / 10_000;

function numberOf(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** GB of memory running when the service is up: mid-range per replica × mid-range replicas. */
function totalMemoryGb(record: ServiceRecordLike): number {
  const scaling = currentScalingOf(record);
  const memory =
    ((numberOf(scaling.effectiveMinReplicaMemoryGb) ?? 8) + (numberOf(scaling.effectiveMaxReplicaMemoryGb) ?? 8)) / 2;
  const replicas = ((numberOf(scaling.effectiveMinReplicas) ?? 1) + (numberOf(scaling.effectiveMaxReplicas) ?? 1)) / 2;
  return memory * replicas;
}

/** Hours the service ran that day: 24 when always on, a share when it idles, 0 when stopped. */
function hoursUp(record: ServiceRecordLike, date: string, hoursInDay: number): number {
  if (record.state === 'stopped' || record.state === 'stopping' || record.state === 'terminated') return 0;
  const idles = record['idleScaling'] === true || record.state === 'idle';
  // A weekday/weekend rhythm plus a little noise, so the chart has a shape.
  const weekend = [0, 6].includes(new Date(`${date}T00:00:00Z`).getUTCDay());
  const share = idles ? (weekend ? 0.15 : 0.45) + noise(record.id, date, 'idle') * 0.2 : 1;
  return hoursInDay * share;
}

function storageOf(id: string, createdAt: unknown, date: string): number {
  const created = typeof createdAt === 'string' ? Date.parse(createdAt) : Number.NaN;
  const ageDays = Number.isNaN(created) ? 365 : Math.max(0, (Date.parse(`${date}T00:00:00Z`) - created) / DAY_MS);
  const size = 0.5 + noise(id, 'storage', 'size') * 2;
  return STORAGE_BASE_CHC * size * (1 + ageDays * 0.002);
}

function row(fields: Omit<UsageCostRow, 'totalCHC' | 'metrics'>, metrics: Record<string, number>): UsageCostRow {
  const rounded = Object.fromEntries(Object.entries(metrics).map(([key, value]) => [key, round(value)]));
  const total = round(Object.values(rounded).reduce((a, b) => a + b, 0));
  return { ...fields, totalCHC: total, metrics: rounded };
}

function emptyMetrics(): Record<string, number> {
  return {
    computeCHC: 0,
    storageCHC: 0,
    backupCHC: 0,
    dataTransferCHC: 0,
    publicDataTransferCHC: 0,
    interRegionTier1DataTransferCHC: 0,
    interRegionTier2DataTransferCHC: 0,
    interRegionTier3DataTransferCHC: 0,
    interRegionTier4DataTransferCHC: 0,
    initialLoadCHC: 0,
  };
}

/** The rows of one day for the given services (already filtered), whose warehouses are looked up in `all`. */
function rowsOfDay(
  services: readonly ServiceRecordLike[],
  all: readonly ServiceRecordLike[],
  date: string,
  nowMs: number,
): UsageCostRow[] {
  const dayStart = Date.parse(`${date}T00:00:00Z`);
  const hoursInDay = Math.min(24, Math.max(0, (nowMs - dayStart) / 3_600_000));
  const locked = dayStart + 2 * DAY_MS <= Date.parse(`${dayText(nowMs)}T00:00:00Z`);
  const warehouseSize = new Map<string, number>();
  for (const record of all) {
    const warehouse = warehouseOf(record);
    warehouseSize.set(warehouse, (warehouseSize.get(warehouse) ?? 0) + 1);
  }
  const rows: UsageCostRow[] = [];
  const billedWarehouses = new Set<string>();
  for (const record of services) {
    if (typeof record['createdAt'] === 'string' && Date.parse(record['createdAt']) >= dayStart + DAY_MS) continue;
    const warehouse = warehouseOf(record);
    const shared = (warehouseSize.get(warehouse) ?? 1) > 1;
    const storage = storageOf(warehouse, createdOf(all, warehouse, record), date) * (hoursInDay / 24);
    const metrics = emptyMetrics();
    metrics.computeCHC = totalMemoryGb(record) * hoursUp(record, date, hoursInDay) * COMPUTE_CHC_PER_GB_HOUR;
    metrics.dataTransferCHC = noise(record.id, date, 'transfer') * 0.4 * (hoursInDay / 24);
    if (!shared) {
      metrics.storageCHC = storage;
      metrics.backupCHC = storage / 10;
    }
    rows.push(
      row(
        {
          date,
          entityType: 'service',
          entityId: record.id,
          entityName: record.name,
          serviceId: record.id,
          dataWarehouseId: warehouse,
          locked,
        },
        metrics,
      ),
    );
    if (shared && !billedWarehouses.has(warehouse)) {
      billedWarehouses.add(warehouse);
      const primary = all.find((candidate) => candidate.id === warehouse);
      rows.push(
        row(
          {
            date,
            entityType: 'datawarehouse',
            entityId: warehouse,
            entityName: `${primary?.name ?? warehouse} warehouse`,
            serviceId: null,
            dataWarehouseId: warehouse,
            locked,
          },
          { ...emptyMetrics(), storageCHC: storage, backupCHC: storage / 10 },
        ),
      );
    }
  }
  return rows;
}

function createdOf(all: readonly ServiceRecordLike[], warehouse: string, fallback: ServiceRecordLike): unknown {
  return (all.find((candidate) => candidate.id === warehouse) ?? fallback)['createdAt'];
}

function dateParameter(query: URLSearchParams, name: string): Outcome<number> {
  const text = query.get(name);
  if (text === null || text === '') return { ok: false, message: `query.${name}: 'is required'` };
  const at = /^\d{4}-\d{2}-\d{2}$/.test(text) ? Date.parse(`${text}T00:00:00Z`) : Number.NaN;
  if (Number.isNaN(at) || dayText(at) !== text) {
    return { ok: false, message: `query.${name}: 'must match format "date"'` };
  }
  return { ok: true, value: at };
}

/**
 * The answer to one call, or the 400 message. `services` are already filtered by tag; `all` is
 * the whole organization (a shared warehouse is billed once whoever is filtered in).
 */
export function usageCost(
  query: URLSearchParams,
  services: readonly ServiceRecordLike[],
  all: readonly ServiceRecordLike[],
  nowMs: number,
): Outcome<UsageCostResult> {
  const from = dateParameter(query, 'from_date');
  if (!from.ok) return from;
  const to = dateParameter(query, 'to_date');
  if (!to.ok) return to;
  if (to.value < from.value) return { ok: false, message: 'to_date must not be before from_date' };
  const days = Math.round((to.value - from.value) / DAY_MS) + 1;
  if (days > USAGE_COST_MAX_DAYS) {
    return { ok: false, message: `the date range must not exceed ${USAGE_COST_MAX_DAYS} days (got ${days})` };
  }
  const malformed = query.getAll('filter').find((filter) => !/^tag:[^=]+(=.*)?$/.test(filter));
  if (malformed !== undefined) return { ok: false, message: `query.filter: '${malformed}' is not a tag filter` };
  const costs: UsageCostRow[] = [];
  for (let at = from.value; at <= to.value && at <= nowMs; at += DAY_MS) {
    costs.push(...rowsOfDay(services, all, dayText(at), nowMs));
  }
  return { ok: true, value: { grandTotalCHC: round(costs.reduce((a, c) => a + c.totalCHC, 0)), costs } };
}

/** A service's warehouse: its own id when it names none (a blank id is none, as the bot reads it). */
function warehouseOf(record: ServiceRecordLike): string {
  const id = record['dataWarehouseId'];
  return typeof id === 'string' && id.trim() !== '' ? id : record.id;
}
