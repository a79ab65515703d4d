/**
 * Cost alerts (COST_ALERTS): which services' spend yesterday (the last complete UTC day) rose above
 * the threshold, or by the factor over the median of the 7 days before it. Pure; the caller claims
 * each alert once per service per day across replicas before posting it.
 */
import { attribute } from './attribution.js';
import { addDays, dayOf, daysOf, type Day, type DayRange } from './period.js';
import type { CostRow } from './schema.js';

export interface AlertRules {
  /** Daily spend above this many CHC alerts; undefined: no absolute threshold. */
  aboveChc: number | undefined;
  /** Daily spend above this many times the 7-day median alerts. */
  factor: number;
}

export interface CostAlert {
  serviceId: string;
  name: string;
  date: Day;
  spend: number;
  median: number;
  above: boolean;
  jumped: boolean;
}

/** Spend under this is never worth an alert, whatever the factor (a service that wakes from 0.01). */
const NOISE_CHC = 1;

/** Yesterday and the 7 days before it: what one look reads. */
export function alertRange(nowMs: number): DayRange {
  const yesterday = addDays(dayOf(nowMs), -1);
  return { from: addDays(yesterday, -7), to: yesterday };
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

export function costAlerts(rows: readonly CostRow[], nowMs: number, rules: AlertRules): CostAlert[] {
  const range = alertRange(nowMs);
  const before = daysOf({ from: range.from, to: addDays(range.to, -1) });
  const spend = new Map<string, { name: string; byDay: Map<Day, number> }>();
  for (const day of attribute(rows)) {
    if (!day.isService) continue;
    const entry = spend.get(day.id) ?? { name: day.name, byDay: new Map<Day, number>() };
    entry.byDay.set(day.date, (entry.byDay.get(day.date) ?? 0) + day.total);
    spend.set(day.id, entry);
  }
  const alerts: CostAlert[] = [];
  for (const [serviceId, { name, byDay }] of spend) {
    const yesterday = byDay.get(range.to) ?? 0;
    if (yesterday < NOISE_CHC) continue;
    const typical = median(before.map((day) => byDay.get(day) ?? 0));
    const above = rules.aboveChc !== undefined && yesterday > rules.aboveChc;
    const jumped = typical > 0 && yesterday > typical * rules.factor;
    if (above || jumped)
      alerts.push({ serviceId, name, date: range.to, spend: yesterday, median: typical, above, jumped });
  }
  return alerts.sort((a, b) => b.spend - a.spend);
}
