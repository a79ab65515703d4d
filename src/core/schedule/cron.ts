/**
 * Cron expressions of scheduled summaries, read with croner (5 fields, or 6 with seconds) in an
 * IANA time zone. Pure: computing run times needs no timer.
 */
import { Cron } from 'croner';

export type CronCheck = { ok: true; nextRuns: Date[] } | { ok: false; message: string };

const CRON_OPTIONS = { mode: '5-or-6-parts', paused: true } as const;
const CRON_HINT = 'Write 5 fields (minute hour day month weekday), e.g. "0 9 * * 1-5", or 6 with seconds first.';

/** How many fire times are looked at for the shortest gap between two of them. */
const GAP_SAMPLE = 100;

/**
 * Checks a schedule's cron expression and time zone; with `minIntervalSeconds`, also refuses one
 * that fires more often than that at its busiest (two runs closer together than the limit).
 */
export function checkCron(
  expression: string,
  timeZone: string,
  from: Date = new Date(),
  minIntervalSeconds = 0,
): CronCheck {
  if (!isTimeZone(timeZone))
    return {
      ok: false,
      message: `"${timeZone}" is not a time zone. Use an IANA name such as Europe/Berlin or America/New_York.`,
    };
  const fields = expression.trim().split(/\s+/).length;
  if (!expression.trim().startsWith('@') && fields !== 5 && fields !== 6)
    return { ok: false, message: `"${expression}" has ${fields} field${fields === 1 ? '' : 's'}. ${CRON_HINT}` };
  let cron: Cron;
  try {
    cron = new Cron(expression, { ...CRON_OPTIONS, timezone: timeZone });
  } catch (error) {
    const reason =
      error instanceof Error
        ? error.message.replace(/^CronPattern:\s*/, '').replace(/\.+$/, '')
        : 'it could not be read';
    return { ok: false, message: `"${expression}" is not a cron expression: ${reason}. ${CRON_HINT}` };
  }
  const nextRuns = cron.nextRuns(3, from);
  if (nextRuns.length === 0) return { ok: false, message: `"${expression}" never fires.` };
  const gap = shortestGapSeconds(cron.nextRuns(GAP_SAMPLE, from));
  if (gap !== undefined && gap < minIntervalSeconds) {
    return {
      ok: false,
      message: `"${expression}" fires every ${duration(gap)} at its busiest, and summaries may be scheduled at most once every ${duration(minIntervalSeconds)} (SCHEDULE_MIN_INTERVAL_SECONDS=${minIntervalSeconds}). Choose a sparser time, e.g. "0 9 * * 1-5".`,
    };
  }
  return { ok: true, nextRuns };
}

function shortestGapSeconds(runs: readonly Date[]): number | undefined {
  let shortest: number | undefined;
  for (let i = 1; i < runs.length; i += 1) {
    const gap = ((runs[i]?.getTime() ?? 0) - (runs[i - 1]?.getTime() ?? 0)) / 1000;
    if (shortest === undefined || gap < shortest) shortest = gap;
  }
  return shortest;
}

/** 1 second, 90 seconds, 15 minutes, 2 hours, 3 days: the largest unit that divides evenly. */
export function duration(seconds: number): string {
  const units: Array<[string, number]> = [
    ['day', 86_400],
    ['hour', 3_600],
    ['minute', 60],
  ];
  const [name, size] = units.find(([, size]) => seconds >= size && seconds % size === 0) ?? ['second', 1];
  const count = seconds / size;
  return `${count} ${name}${count === 1 ? '' : 's'}`;
}

export function cronFor(expression: string, timeZone: string): Cron {
  return new Cron(expression, { ...CRON_OPTIONS, timezone: timeZone });
}

/**
 * The run missed while no replica was up, if it should still be posted: the latest scheduled time
 * before now, later than the last run and the schedule's creation, and less than one period old.
 */
export function missedRun(
  expression: string,
  timeZone: string,
  now: Date,
  lastRun: number | undefined,
  createdAt: number,
): Date | undefined {
  const cron = cronFor(expression, timeZone);
  // The period is the gap between the last two fire times: for "weekdays at 9" on a Sunday that is
  // a day, so Friday's run (51 h old) is not posted after a weekend outage.
  const [previous, before] = cron.previousRuns(2, now);
  if (!previous || previous.getTime() <= Math.max(lastRun ?? -Infinity, createdAt)) return undefined;
  const period = before ? previous.getTime() - before.getTime() : Infinity;
  return now.getTime() - previous.getTime() < period ? previous : undefined;
}

export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
