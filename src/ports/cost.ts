/**
 * Spend: the usageCost reads (cloud/client.ts), the shared cache of days read (store/redis and
 * store/memory), the chart renderer (chart/) and what the middle layer offers as "costs".
 */
import type { DayRange } from '../core/cost/period.js';
import type { CostRow } from '../core/cost/schema.js';
import type { CostReport, DailySpendSeries } from '../core/cost/report.js';
import type { ReadOptions } from './service-directory.js';

export interface UsageCostAnswer {
  rows: CostRow[];
  requestId: string;
}

/** GET …/usageCost for at most 31 days (the caller splits longer ranges). */
export interface UsageCostSource {
  usageCost(range: DayRange, filters?: readonly string[], options?: ReadOptions): Promise<UsageCostAnswer>;
}

/** One UTC day as read from the API, kept for replicas to share. */
export interface StoredCostDay {
  date: string;
  rows: CostRow[];
  /** Every row of the day was `locked`: the day never changes again and is never read again. */
  settled: boolean;
  /** When it was read (epoch ms): an unsettled day is read again once this is an hour old. */
  readAt: number;
  /**
   * The organization whose rows these are. The store is shared by whatever organization the bot
   * serves now: a day of another one (CLICKHOUSE_ORG_ID or the file's first organization changed)
   * is read again, never shown.
   */
  organizationId?: string | undefined;
}

/**
 * Days older than this before the newest day written are dropped from the store: the longest
 * report reads 180 days (90 and the 90 before), alerts 8.
 */
export const COST_DAYS_KEPT = 200;

export interface CostDayStore {
  /** The stored days among `dates` (absent ones are left out). */
  readDays(dates: readonly string[]): Promise<Map<string, StoredCostDay>>;
  /** Stores the days, and drops those older than COST_DAYS_KEPT before the newest one written. */
  writeDays(days: readonly StoredCostDay[]): Promise<void>;
  /** True for the first caller across replicas for this key within ttlMs (a cost alert, once per day). */
  claimOnce(key: string, ttlMs: number): Promise<boolean>;
}

/** The organization's cost rows for a range of days, from the cache where it can. */
export interface CostReader {
  rows(range: DayRange, options?: ReadOptions): Promise<CostRow[]>;
}

export type ChartTheme = 'light' | 'dark';

/** Renders the daily spend chart as a PNG. */
export interface ChartRenderer {
  dailySpend(
    data: DailySpendSeries,
    options: { title: string; theme?: ChartTheme; width?: number; height?: number },
  ): Promise<Uint8Array>;
}

/** Draws a report's daily spend chart and shares it in a channel or thread (cost/chart-poster.ts). */
export interface SpendCharts {
  /** Never rejects: a failure is said in the channel, in a sentence, and logged. */
  share(report: CostReport, scopeLabel: string, channelId: string, threadTs?: string): Promise<void>;
}
