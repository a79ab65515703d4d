/** Organization-wide numbers for the summary's headline. */
import type { ServiceRecord } from '../service/schema.js';
import { postureFindings, type PostureCode, type PostureFinding } from '../posture/rules.js';
import { baselineCapacity, currentCapacity, effectiveCapacity, type Range } from '../service/capacity.js';

export type { Range } from '../service/capacity.js';

export type FindingsByService = ReadonlyMap<string, readonly PostureFinding[]>;

/** Posture findings of every service, by service id, computed once for totals and details. */
export function findingsByService(services: readonly ServiceRecord[]): Map<string, PostureFinding[]> {
  return new Map(services.map((service) => [service.id, postureFindings(service)]));
}

export interface SummaryTotals {
  services: number;
  /** Services per state; records without a state are not counted here. */
  byState: Map<string, number>;
  /** Services per release channel; records without one are not counted here. */
  byReleaseChannel: Map<string, number>;
  /** Sum over services that report replicas; undefined when none does. */
  replicas: Range | undefined;
  servicesWithoutReplicas: number;
  /**
   * Sum of total memory (GB: per-replica memory x replicas, never the deprecated totals) over
   * services that report both; undefined when none does.
   */
  memoryGb: Range | undefined;
  servicesWithoutMemory: number;
  /** Services whose scaling schedule makes what runs now differ from the baseline. */
  servicesScaledNow: number;
  /** Replicas and memory in force now (the current scaling where active, else the baseline). */
  replicasNow: Range | undefined;
  memoryGbNow: Range | undefined;
  /** Findings per posture code, with the rule's short label. */
  findings: Map<PostureCode, { label: string; count: number }>;
  findingCount: number;
  servicesWithFindings: number;
}

export function summaryTotals(
  services: readonly ServiceRecord[],
  findings: FindingsByService = findingsByService(services),
): SummaryTotals {
  const replicas = sumRanges(services.map(replicaRange));
  const memory = sumRanges(services.map(memoryRange));
  const now = services.map(effectiveCapacity);
  const posture = countFindings(services, findings);
  return {
    services: services.length,
    byState: countBy(services, (s) => s.state),
    byReleaseChannel: countBy(services, (s) => s.releaseChannel),
    replicas: replicas.total,
    servicesWithoutReplicas: replicas.missing,
    memoryGb: memory.total,
    servicesWithoutMemory: memory.missing,
    servicesScaledNow: services.filter((s) => currentCapacity(s) !== undefined).length,
    replicasNow: sumRanges(now.map((c) => c.replicas)).total,
    memoryGbNow: sumRanges(now.map((c) => c.totalMemoryGb)).total,
    ...posture,
  };
}

function countBy(
  services: readonly ServiceRecord[],
  key: (s: ServiceRecord) => string | undefined,
): Map<string, number> {
  const counts = new Map<string, number>();
  for (const service of services) {
    const value = key(service);
    if (value) counts.set(value, (counts.get(value) ?? 0) + 1);
  }
  return counts;
}

/** numReplicas (vertical autoscaling) is exact; horizontal services give minReplicas..maxReplicas. */
export function replicaRange(s: ServiceRecord): Range | undefined {
  return baselineCapacity(s).replicas;
}

/** Per-replica memory x replicas; the deprecated total fields (always three workers) are ignored. */
export function memoryRange(s: ServiceRecord): Range | undefined {
  return baselineCapacity(s).totalMemoryGb;
}

function sumRanges(ranges: Array<Range | undefined>): { total: Range | undefined; missing: number } {
  let total: Range | undefined;
  let missing = 0;
  for (const range of ranges) {
    if (range === undefined) missing += 1;
    else total = { min: (total?.min ?? 0) + range.min, max: (total?.max ?? 0) + range.max };
  }
  return { total, missing };
}

function countFindings(
  services: readonly ServiceRecord[],
  findings: FindingsByService,
): Pick<SummaryTotals, 'findings' | 'findingCount' | 'servicesWithFindings'> {
  const byCode = new Map<PostureCode, { label: string; count: number }>();
  let findingCount = 0;
  let servicesWithFindings = 0;
  for (const service of services) {
    const own = findings.get(service.id) ?? [];
    if (own.length > 0) servicesWithFindings += 1;
    for (const finding of own) {
      findingCount += 1;
      const entry = byCode.get(finding.code) ?? { label: finding.label, count: 0 };
      byCode.set(finding.code, { ...entry, count: entry.count + 1 });
    }
  }
  return { findings: byCode, findingCount, servicesWithFindings };
}
