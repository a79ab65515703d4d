/**
 * Who a credit is for. Services are the unit people decide about, so every row is attributed to
 * a service when it can be: a service's own row to itself, a ClickPipe's to the service it feeds,
 * and a data warehouse's (the storage that services sharing it have in common, billed once) split
 * evenly among the services of that warehouse seen that day. What cannot be attributed stays its
 * own entity, named as the API names it.
 */
import type { CostMetrics, CostRow } from './schema.js';
import type { Day } from './period.js';

export const COST_KINDS = ['compute', 'storage', 'backup', 'transfer', 'other'] as const;
export type CostKind = (typeof COST_KINDS)[number];
export type KindSplit = Record<CostKind, number>;

export const noKinds = (): KindSplit => ({ compute: 0, storage: 0, backup: 0, transfer: 0, other: 0 });

/** The row's credits by kind; "other" is what the total holds beyond the known metrics (initial loads...). */
export function kindsOf(total: number, m: CostMetrics): KindSplit {
  const transfer =
    m.dataTransferCHC +
    m.publicDataTransferCHC +
    m.interRegionTier1DataTransferCHC +
    m.interRegionTier2DataTransferCHC +
    m.interRegionTier3DataTransferCHC +
    m.interRegionTier4DataTransferCHC;
  const known = m.computeCHC + m.storageCHC + m.backupCHC + transfer;
  return {
    compute: m.computeCHC,
    storage: m.storageCHC,
    backup: m.backupCHC,
    transfer,
    other: Math.max(0, total - known),
  };
}

/** One entity's credits on one day, after attribution. */
export interface EntityDay {
  date: Day;
  /** A service id, or the id of an entity that could not be attributed. */
  id: string;
  name: string;
  /** True for a service (its id can be looked up and filtered by tags). */
  isService: boolean;
  total: number;
  kinds: KindSplit;
  /** Of `total`, the warehouse storage attributed to this service. */
  fromWarehouse: number;
}

function addKinds(into: KindSplit, more: KindSplit, factor = 1): void {
  for (const kind of COST_KINDS) into[kind] += more[kind] * factor;
}

/** Attributes rows to services (see above). The order of the answer is by day, then by first appearance. */
export function attribute(rows: readonly CostRow[]): EntityDay[] {
  const byKey = new Map<string, EntityDay>();
  const names = new Map<string, string>();
  const membersOf = new Map<string, Map<Day, Set<string>>>();
  for (const row of rows) {
    if (row.entityType === 'service') names.set(row.entityId, row.entityName ?? row.entityId);
    const warehouse = row.dataWarehouseId;
    const serviceId = row.entityType === 'service' ? row.entityId : undefined;
    if (warehouse !== undefined && serviceId !== undefined) {
      const days = membersOf.get(warehouse) ?? new Map<Day, Set<string>>();
      membersOf.set(warehouse, days);
      days.set(row.date, (days.get(row.date) ?? new Set()).add(serviceId));
    }
  }
  const entry = (date: Day, id: string, name: string, isService: boolean): EntityDay => {
    const key = `${date}\u0000${id}`;
    const found = byKey.get(key);
    if (found) return found;
    const created = { date, id, name, isService, total: 0, kinds: noKinds(), fromWarehouse: 0 };
    byKey.set(key, created);
    return created;
  };
  for (const row of rows) {
    const kinds = kindsOf(row.totalCHC, row.metrics);
    const target = targetsOf(row, membersOf);
    if (target.length === 0) {
      const own = entry(row.date, row.entityId, row.entityName ?? row.entityId, row.entityType === 'service');
      own.total += row.totalCHC;
      addKinds(own.kinds, kinds);
      continue;
    }
    const share = 1 / target.length;
    for (const serviceId of target) {
      const day = entry(row.date, serviceId, names.get(serviceId) ?? serviceId, true);
      day.total += row.totalCHC * share;
      addKinds(day.kinds, kinds, share);
      if (row.entityType === 'datawarehouse') day.fromWarehouse += row.totalCHC * share;
    }
  }
  return [...byKey.values()];
}

/** The services a row is for; empty when it is its own entity. */
function targetsOf(row: CostRow, membersOf: Map<string, Map<Day, Set<string>>>): string[] {
  if (row.entityType === 'service') return [];
  if (row.entityType === 'datawarehouse') {
    const days = membersOf.get(row.dataWarehouseId ?? row.entityId);
    const sameDay = days?.get(row.date);
    if (sameDay && sameDay.size > 0) return [...sameDay];
    // No member billed that day: any member seen in the period.
    const any = new Set([...(days?.values() ?? [])].flatMap((set) => [...set]));
    return [...any].sort();
  }
  return row.serviceId ? [row.serviceId] : [];
}
