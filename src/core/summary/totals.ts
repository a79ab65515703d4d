/** Organization-wide numbers for the summary's headline. */
import type { ServiceRecord } from '../service/schema.js';
import { postureFindings, type PostureCode, type PostureFinding } from '../posture/rules.js';

export type FindingsByService = ReadonlyMap<string, readonly PostureFinding[]>;

/** Posture findings of every service, by service id, computed once for totals and details. */
export function findingsByService(services: readonly ServiceRecord[]): Map<string, PostureFinding[]> {
  return new Map(services.map((service) => [service.id, postureFindings(service)]));
}

export interface Range {
  min: number;
  max: number;
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
  /** Sum of total memory (GB) over services that report it; undefined when none does. */
  memoryGb: Range | undefined;
  servicesWithoutMemory: number;
  /** Findings per posture code, with the rule's short label. */
  findings: Map<PostureCode, { label: string; count: number }>;
  findingCount: number;
  servicesWithFindings: number;
}

export function summaryTotals(services: readonly ServiceRecord[], findings: FindingsByService = findingsByService(services)): SummaryTotals {
  const replicas = sumRanges(services.map(replicaRange));
  const memory = sumRanges(services.map(memoryRange));
  const posture = countFindings(services, findings);
  return {
    services: services.length,
    byState: countBy(services, (s) => s.state),
    byReleaseChannel: countBy(services, (s) => s.releaseChannel),
    replicas: replicas.total,
    servicesWithoutReplicas: replicas.missing,
    memoryGb: memory.total,
    servicesWithoutMemory: memory.missing,
    ...posture,
  };
}

function countBy(services: readonly ServiceRecord[], key: (s: ServiceRecord) => string | undefined): Map<string, number> {
  const counts = new Map<string, number>();
  for (const service of services) {
    const value = key(service);
    if (value) counts.set(value, (counts.get(value) ?? 0) + 1);
  }
  return counts;
}

/** numReplicas (vertical autoscaling) is exact; otherwise minReplicas..maxReplicas. */
export function replicaRange(s: ServiceRecord): Range | undefined {
  if (s.numReplicas !== undefined) return { min: s.numReplicas, max: s.numReplicas };
  return rangeOf(s.minReplicas, s.maxReplicas);
}

/** Total memory is absent for horizontally autoscaled services; those count as unknown. */
export function memoryRange(s: ServiceRecord): Range | undefined {
  return rangeOf(s.minTotalMemoryGb, s.maxTotalMemoryGb);
}

function rangeOf(min: number | undefined, max: number | undefined): Range | undefined {
  if (min === undefined && max === undefined) return undefined;
  return { min: min ?? max ?? 0, max: max ?? min ?? 0 };
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

function countFindings(services: readonly ServiceRecord[], findings: FindingsByService): Pick<SummaryTotals, 'findings' | 'findingCount' | 'servicesWithFindings'> {
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
