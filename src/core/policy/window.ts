/**
 * Maintenance windows and freezes: whether a rule's changes may be applied at a moment, when its
 * window next opens, and which freeze is in force. Wall-clock times are read in the window's time
 * zone through Intl, so a window follows daylight saving time: "09:00 Berlin" is 08:00 UTC in
 * summer and 07:00 in winter. A local time that does not exist (the hour skipped in spring) is
 * taken as the same time after the skip (02:30 -> 03:30), one that exists twice (autumn) as the
 * first, as Temporal's "compatible" rule does. Pure: `now` is always given.
 */
import type { ChangeWindow, Freeze, Requirement } from './types.js';
import { WEEKDAYS } from './types.js';
import { zoneFormatter } from '../time/zone-clock.js';

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

/** A date and time as a wall clock in some zone shows it. */
export interface WallClock {
  year: number;
  month: number;
  day: number;
  /** 0 = Sunday. */
  weekday: number;
  /** Minutes after midnight. */
  minute: number;
}

/** The wall clock of `tz` at `at`. */
export function wallClock(at: number, tz: string): WallClock {
  const { year, month, day, minute } = partsOf(at, tz);
  return { year, month, day, weekday: new Date(Date.UTC(year, month - 1, day)).getUTCDay(), minute };
}

function partsOf(at: number, tz: string) {
  const parts: Record<string, number> = {};
  for (const part of zoneFormatter(tz).formatToParts(new Date(at)))
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  return {
    year: parts.year ?? 1970,
    month: parts.month ?? 1,
    day: parts.day ?? 1,
    minute: (parts.hour ?? 0) * 60 + (parts.minute ?? 0),
    second: parts.second ?? 0,
  };
}

/** How far `tz`'s wall clock is ahead of UTC at `at`, in ms (whole seconds: zones have no finer offsets). */
function offsetAt(at: number, tz: string): number {
  const wall = partsOf(at, tz);
  const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, 0, wall.minute, wall.second);
  return asUtc - Math.floor(at / 1000) * 1000;
}

/**
 * The instant a wall clock in `tz` shows this date (month 1-12; a day past the month's end rolls
 * over) and minute of the day (1440 = the next midnight).
 */
export function zonedInstant(date: { year: number; month: number; day: number }, minute: number, tz: string): number {
  const naive = Date.UTC(date.year, date.month - 1, date.day, 0, minute);
  const before = naive - offsetAt(naive - DAY_MS, tz);
  const after = naive - offsetAt(naive + DAY_MS, tz);
  const valid = [before, after].filter((at) => naive - at === offsetAt(at, tz));
  if (valid.length > 0) return Math.min(...valid);
  // Skipped by a change to summer time: the same wall time, moved on by the skip.
  return before;
}

/** Adds days to a calendar date (wall-clock arithmetic, no zone involved). */
function addDays(date: { year: number; month: number; day: number }, days: number) {
  const shifted = new Date(Date.UTC(date.year, date.month - 1, date.day + days));
  return { year: shifted.getUTCFullYear(), month: shifted.getUTCMonth() + 1, day: shifted.getUTCDate() };
}

const listed = (window: ChangeWindow, weekday: number) => window.days.includes(WEEKDAYS[(weekday + 7) % 7] ?? 'sun');

/** Whether the window is open at `at`. A window that wraps past midnight belongs to the day it opens. */
export function isOpen(window: ChangeWindow, at: number): boolean {
  const { weekday, minute } = wallClock(at, window.tz);
  if (window.fromMinute < window.toMinute)
    return listed(window, weekday) && minute >= window.fromMinute && minute < window.toMinute;
  return (
    (listed(window, weekday) && minute >= window.fromMinute) ||
    (listed(window, weekday - 1) && minute < window.toMinute)
  );
}

/** The first moment at or after `at` the window is open (`at` itself when it is open). */
export function nextOpening(window: ChangeWindow, at: number): number {
  if (isOpen(window, at)) return at;
  const today = wallClock(at, window.tz);
  for (let days = 0; days <= 8; days++) {
    const date = addDays(today, days);
    if (!listed(window, (today.weekday + days) % 7)) continue;
    const opening = zonedInstant(date, window.fromMinute, window.tz);
    if (opening > at) return opening;
  }
  // Unreachable with at least one listed day (the parser insists on one).
  return at + 7 * DAY_MS;
}

/** When the window that is open at `at` closes (`at` when it is closed). */
export function closingAfter(window: ChangeWindow, at: number): number {
  if (!isOpen(window, at)) return at;
  const today = wallClock(at, window.tz);
  const wrapsFromYesterday = window.fromMinute >= window.toMinute && today.minute < window.toMinute;
  const closesOn = window.fromMinute < window.toMinute || wrapsFromYesterday ? today : addDays(today, 1);
  return zonedInstant(closesOn, window.toMinute, window.tz);
}

/** A freeze's first and last moment (exclusive end), in `tz`. */
export function freezeSpan(freeze: Freeze, tz: string): { from: number; until: number } {
  return { from: zonedInstant(dateOf(freeze.from), 0, tz), until: zonedInstant(addDays(dateOf(freeze.to), 1), 0, tz) };
}

function dateOf(text: string): { year: number; month: number; day: number } {
  const [year = 1970, month = 1, day = 1] = text.split('-').map(Number);
  return { year, month, day };
}

/** Freezes count in the rule's window time zone, or in UTC when the rule has no window. */
export const freezeZone = (rule: { window?: ChangeWindow }) => rule.window?.tz ?? 'UTC';

/** The freeze of these in force at `at`, with when it ends. */
export function freezeInForce(
  freezes: readonly Freeze[] | undefined,
  tz: string,
  at: number,
): { freeze: Freeze; until: number } | undefined {
  for (const freeze of freezes ?? []) {
    const span = freezeSpan(freeze, tz);
    if (span.from <= at && at < span.until) return { freeze, until: span.until };
  }
  return undefined;
}

/** When a request under these rules may be applied, as seen at `now`. */
export type Timing =
  | { kind: 'open' }
  /** A rule's freeze is in force: refused (break-glass aside). */
  | { kind: 'frozen'; rule: string; freeze: Freeze; until: number }
  /** Outside a rule's window: it may be applied at `at`, the first moment every window is open and no freeze holds. */
  | { kind: 'deferred'; at: number; rules: readonly WindowedRule[] }
  /** The windows never open together within a year (windows on different days, or a freeze over them all). */
  | { kind: 'never'; rules: readonly WindowedRule[] };

export interface WindowedRule {
  rule: string;
  window: ChangeWindow;
}

/** How far ahead a deferred change may be put: further than this is a policy that can never be met. */
const HORIZON_MS = 366 * DAY_MS;

export function timingOf(requirements: readonly Requirement[], now: number): Timing {
  for (const requirement of requirements) {
    const frozen = freezeInForce(requirement.freezes, freezeZone(requirement), now);
    if (frozen) return { kind: 'frozen', rule: requirement.rule, ...frozen };
  }
  const windowed: WindowedRule[] = requirements.flatMap((r) => (r.window ? [{ rule: r.rule, window: r.window }] : []));
  const closed = windowed.filter(({ window }) => !isOpen(window, now));
  if (closed.length === 0) return { kind: 'open' };
  const at = firstAllowed(requirements, windowed, now);
  return at === undefined ? { kind: 'never', rules: closed } : { kind: 'deferred', at, rules: closed };
}

/** The first moment after `now` every window is open and no freeze of the rules holds. */
function firstAllowed(requirements: readonly Requirement[], windowed: readonly WindowedRule[], now: number) {
  let at = now;
  for (let round = 0; round < 400 && at - now <= HORIZON_MS; round++) {
    const candidate = Math.max(...windowed.map(({ window }) => nextOpening(window, at)));
    const frozen = requirements
      .map((r) => freezeInForce(r.freezes, freezeZone(r), candidate)?.until)
      .filter((until): until is number => until !== undefined);
    if (frozen.length > 0) {
      at = Math.max(...frozen);
      continue;
    }
    if (windowed.every(({ window }) => isOpen(window, candidate))) return candidate;
    at = candidate + MINUTE_MS;
  }
  return undefined;
}
