/**
 * The spend of a period against the period before: totals, per service, split by kind, the top
 * movers and each day's spend per service (for the chart). Pure: rows in, numbers out.
 */
import { attribute, COST_KINDS, noKinds, type EntityDay, type KindSplit } from './attribution.js';
import { daysOf, periodEndingYesterday, previousPeriod, type Day, type DayRange } from './period.js';
import type { CostRow } from './schema.js';

export interface ServiceSpend {
  id: string;
  name: string;
  isService: boolean;
  total: number;
  previous: number;
  /** Of total: warehouse storage attributed to this service. */
  fromWarehouse: number;
}

export interface CostReport {
  period: DayRange;
  previousPeriod: DayRange;
  total: number;
  previousTotal: number;
  kinds: KindSplit;
  /** Highest spend first. */
  services: ServiceSpend[];
  /** The largest changes against the previous period, largest first (increases and decreases). */
  movers: ServiceSpend[];
  /** Warehouse storage attributed to services over the period (0 when none). */
  warehouseAttributed: number;
  /** Per service per day, for the chart. */
  days: EntityDay[];
}

/** Which entities count: every one, or those a predicate (a service or a tag filter) keeps. */
export type EntityFilter = (entity: { id: string; isService: boolean }) => boolean;

export const everyEntity: EntityFilter = () => true;

const within = (range: DayRange) => (day: EntityDay) => day.date >= range.from && day.date <= range.to;

export function costReport(
  rows: readonly CostRow[],
  period: DayRange,
  previous: DayRange,
  keep: EntityFilter = everyEntity,
  moversCount = 3,
): CostReport {
  const all = attribute(rows).filter((day) => keep(day));
  const current = all.filter(within(period));
  const before = all.filter(within(previous));
  const byId = new Map<string, ServiceSpend>();
  const spendOf = (day: EntityDay) => {
    const found = byId.get(day.id);
    if (found) return found;
    const created = { id: day.id, name: day.name, isService: day.isService, total: 0, previous: 0, fromWarehouse: 0 };
    byId.set(day.id, created);
    return created;
  };
  const kinds = noKinds();
  for (const day of current) {
    const spend = spendOf(day);
    spend.name = day.name;
    spend.total += day.total;
    spend.fromWarehouse += day.fromWarehouse;
    for (const kind of COST_KINDS) kinds[kind] += day.kinds[kind];
  }
  for (const day of before) spendOf(day).previous += day.total;
  const services = [...byId.values()].sort((a, b) => b.total - a.total || a.name.localeCompare(b.name));
  const movers = services
    .filter((s) => Math.abs(s.total - s.previous) >= 0.005)
    .sort((a, b) => Math.abs(b.total - b.previous) - Math.abs(a.total - a.previous))
    .slice(0, moversCount);
  return {
    period,
    previousPeriod: previous,
    total: sum(current.map((d) => d.total)),
    previousTotal: sum(before.map((d) => d.total)),
    kinds,
    // A credit (a negative total) is listed too: the services add up to the total.
    services: services.filter((s) => s.total !== 0 || s.previous !== 0),
    movers,
    warehouseAttributed: sum(current.map((d) => d.fromWarehouse)),
    days: current,
  };
}

export const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0);

/** Relative change in percent, or undefined when there was nothing before. */
export function changePercent(now: number, before: number): number | undefined {
  return before > 0 ? ((now - before) / before) * 100 : undefined;
}

/** The chart's data: one value per series per day. */
export interface DailySpendSeries {
  days: Day[];
  series: Array<{ name: string; values: number[]; total: number }>;
  /** What each series is: a service (the top ones, "other", "credits") or a kind of spend of one service. */
  splitBy: 'service' | 'kind';
}

export const OTHER_SERIES = 'other';
/** The services whose period is a credit (a negative total), drawn below zero. */
export const CREDITS_SERIES = 'credits';

/**
 * The top services by spend, everything else as "other". A report of one service is split by
 * kind instead (compute, storage, backup, transfer), as its text is: one bar of one colour would
 * say less than the text beside it.
 */
export function dailySpendSeries(report: Pick<CostReport, 'period' | 'days' | 'services'>, top = 8): DailySpendSeries {
  if (report.services.length === 1) return dailySpendByKind(report);
  const days = daysOf(report.period);
  const index = new Map(days.map((day, i) => [day, i]));
  const spending = report.services.filter((s) => s.total > 0);
  const shown = spending.slice(0, spending.length > top ? top - 1 : top);
  const shownIds = new Set(shown.map((s) => s.id));
  // A credit netted into "other" would shrink (or drop) the small services' spend drawn there.
  const creditIds = new Set(report.services.filter((s) => s.total < 0).map((s) => s.id));
  const series = shown.map((s) => ({ id: s.id, name: s.name, values: days.map(() => 0), total: 0 }));
  const other = { id: '', name: OTHER_SERIES, values: days.map(() => 0), total: 0 };
  const credit = { id: '', name: CREDITS_SERIES, values: days.map(() => 0), total: 0 };
  const seriesOf = new Map(series.map((s) => [s.id, s]));
  for (const day of report.days) {
    const at = index.get(day.date);
    if (at === undefined) continue;
    const target = shownIds.has(day.id) ? seriesOf.get(day.id) : creditIds.has(day.id) ? credit : other;
    if (!target) continue;
    target.values[at] = (target.values[at] ?? 0) + day.total;
    target.total += day.total;
  }
  const all = [...series, ...(other.total > 0 ? [other] : []), ...(credit.total < 0 ? [credit] : [])];
  return { days, series: all.map(({ name, values, total }) => ({ name, values, total })), splitBy: 'service' };
}

/** One service's days, one series per kind it spent on ("other" only when there is some). */
function dailySpendByKind(report: Pick<CostReport, 'period' | 'days'>): DailySpendSeries {
  const days = daysOf(report.period);
  const index = new Map(days.map((day, i) => [day, i]));
  const series = COST_KINDS.map((kind) => ({ name: kind, values: days.map(() => 0), total: 0 }));
  for (const day of report.days) {
    const at = index.get(day.date);
    if (at === undefined) continue;
    for (const [i, kind] of COST_KINDS.entries()) {
      const target = series[i];
      if (!target) continue;
      target.values[at] = (target.values[at] ?? 0) + day.kinds[kind];
      target.total += day.kinds[kind];
    }
  }
  // A kind it never spent on (a service without backups) is not drawn, as the text leaves out "other".
  return { days, series: series.filter((s) => Math.abs(s.total) >= 0.005), splitBy: 'kind' };
}

/** The summary's spend: the last 7 complete days against the 7 before, and yesterday alone. */
export interface WeekSpend {
  report: CostReport;
  yesterday: number;
}

/** The range a WeekSpend reads: the 7 days ending yesterday and the 7 before them. */
export function weekSpendRange(nowMs: number): DayRange {
  const period = periodEndingYesterday(nowMs, 7);
  return { from: previousPeriod(period).from, to: period.to };
}

export function weekSpend(rows: readonly CostRow[], nowMs: number, keep: EntityFilter = everyEntity): WeekSpend {
  const period = periodEndingYesterday(nowMs, 7);
  const report = costReport(rows, period, previousPeriod(period), keep);
  const yesterday = sum(report.days.filter((day) => day.date === period.to).map((day) => day.total));
  return { report, yesterday };
}
