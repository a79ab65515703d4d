/**
 * `at TIME` of a change command: when an approved change is applied. Pure: reading the words
 * needs no clock; resolving them to an instant takes the clock and the time zone as arguments.
 *
 * Forms: `at 2026-12-01 09:00` (a date), `at 09:00` (its next occurrence), `at monday 06:00`
 * (the next such weekday), each optionally followed by `tz:Area/City`.
 *
 * Daylight saving time, in the zone the time is read in:
 * - a local time that does not exist (the hour skipped when clocks go forward) is refused in a
 *   sentence: a production change should not move by an hour on its own;
 * - a local time that happens twice (the hour repeated when clocks go back) means its first
 *   occurrence, the one still on summer time (as Temporal's "compatible" disambiguation does).
 */
import { isTimeZone } from '../schedule/cron.js';
import { zoneFormatter } from '../time/zone-clock.js';

export const WHEN_FORMS =
  'Write the time as at 2026-12-01 09:00, at 09:00 (the next 09:00) or at monday 06:00 (the next Monday), ' +
  'on a 24-hour clock, optionally followed by a time zone like tz:Europe/Berlin';

/** How far ahead a change may be scheduled: a request and its approvals should not outlive their context. */
export const WHEN_MAX_AHEAD_DAYS = 90;
/** Approvals expire at the time: one closer than this could not be approved (and is no schedule). */
export const WHEN_MIN_AHEAD_MS = 60_000;

const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const;
const WEEKDAY_SHORT = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

export type WhenDay =
  { kind: 'date'; year: number; month: number; day: number } | { kind: 'weekday'; weekday: number } | { kind: 'next' };

/** `at …` as written, checked for what can be checked without a clock. */
export interface WhenSpec {
  day: WhenDay;
  hour: number;
  minute: number;
  /** From `tz:`; absent: the channel's or the requester's zone decides. */
  zone?: string;
  /** The words as written, for messages. */
  text: string;
}

export type WhenReading =
  | { kind: 'when'; spec: WhenSpec; words: number }
  /** The words look like a time but are not one this bot reads: refused with the forms. */
  | { kind: 'unreadable'; message: string }
  /** The words are not about time at all (an `at` in a description). */
  | { kind: 'other' };

const TIME = /^(\d{1,2}):(\d{2})$/u;
const DATE = /^(\d{4})-(\d{1,2})-(\d{1,2})$/u;

/** Reads the words after an `at`: [date | weekday] HH:MM [tz:Area/City]. */
export function readWhen(words: readonly string[]): WhenReading {
  const [first, second, third] = words.map((word) => word.toLowerCase());
  if (first === undefined) return unreadable('The at at the end is not followed by a time.');
  if (!looksLikeTime(first)) return { kind: 'other' };
  const dayOf = dayWord(first);
  if (dayOf && 'problem' in dayOf) return unreadable(dayOf.problem);
  const timeWord = dayOf ? second : first;
  const said = words.slice(0, dayOf ? 2 : 1).join(' ');
  if (timeWord === undefined) return unreadable(`${quoteWords(said)} has no time of day.`);
  const time = readTime(timeWord);
  if ('problem' in time) return unreadable(time.problem);
  let used = dayOf ? 2 : 1;
  const zoneWord = dayOf ? third : second;
  let zone: string | undefined;
  if (zoneWord?.startsWith('tz:')) {
    zone = (dayOf ? words[2] : words[1])?.slice(3) ?? '';
    if (!isTimeZone(zone) || zone === '')
      return unreadable(
        `${quoteWords(`tz:${zone}`)} is not a time zone I know: use an IANA name like tz:Europe/Berlin.`,
      );
    used += 1;
  }
  const qualifier = words[used];
  if (qualifier !== undefined && qualifiesTime(qualifier))
    return unreadable(
      `${quoteWords(qualifier)} after ${quoteWords(words.slice(0, used).join(' '))} would change the time, and I do not read it.`,
    );
  const spec: WhenSpec = {
    day: dayOf ? dayOf.day : { kind: 'next' },
    ...time,
    ...(zone !== undefined ? { zone } : {}),
    text: words.slice(0, used).join(' '),
  };
  return { kind: 'when', spec, words: used };
}

/** Words people write times and days with, which this bot does not read: refused, never a description. */
const TIME_WORDS = new Set(
  (
    'today tomorrow tonight noon midday midnight next half quarter ' +
    'one two three four five six seven eight nine ten eleven twelve ' +
    'jan feb mar apr may jun jul aug sep sept oct nov dec january february march april june july ' +
    'august september october november december'
  ).split(' '),
);

/** A word an `at` of a schedule starts with: a digit, a weekday, or a word people use for times and days. */
function looksLikeTime(word: string): boolean {
  return /^\d/u.test(word) || weekdayOf(word) !== undefined || TIME_WORDS.has(word);
}

/** Common abbreviations of time zones, which people write after a time instead of tz:Area/City. */
const ZONE_ABBREVIATIONS = new Set(
  'utc gmt z cet cest eet eest wet west bst ist est edt cst cdt mst mdt pst pdt akst akdt hst aest aedt jst kst sgt'.split(
    ' ',
  ),
);

/**
 * A word right after the time that would change its meaning (am/pm, a day, a zone, an offset):
 * kept as an ip description it would silently schedule another time than the one meant.
 */
function qualifiesTime(word: string): boolean {
  const lower = word.toLowerCase();
  return (
    /^[ap]\.?m\.?$/u.test(lower) ||
    looksLikeTime(lower) ||
    /^[+-]\d/u.test(lower) ||
    lower.startsWith('tz:') ||
    ZONE_ABBREVIATIONS.has(lower) ||
    /^(utc|gmt)[+-]/u.test(lower) ||
    (lower.includes('/') && isTimeZone(word)) ||
    ['tonight', 'morning', 'afternoon', 'evening'].includes(lower)
  );
}

function weekdayOf(word: string): number | undefined {
  const full = WEEKDAYS.indexOf(word as (typeof WEEKDAYS)[number]);
  if (full !== -1) return full;
  const short = WEEKDAY_SHORT.indexOf(word);
  return short === -1 ? undefined : short;
}

function dayWord(word: string): { day: WhenDay } | { problem: string } | undefined {
  const weekday = weekdayOf(word);
  if (weekday !== undefined) return { day: { kind: 'weekday', weekday } };
  const date = DATE.exec(word);
  if (!date) return TIME.test(word) ? undefined : { problem: `${quoteWords(word)} is not a date or a time I read.` };
  const [year, month, day] = [Number(date[1]), Number(date[2]), Number(date[3])];
  const probe = new Date(Date.UTC(year, month - 1, day));
  if (month < 1 || month > 12 || probe.getUTCMonth() !== month - 1 || probe.getUTCDate() !== day)
    return { problem: `${quoteWords(word)} is not a date on the calendar.` };
  return { day: { kind: 'date', year, month, day } };
}

function readTime(word: string): { hour: number; minute: number } | { problem: string } {
  const time = TIME.exec(word);
  if (!time) return { problem: `${quoteWords(word)} is not a time of day.` };
  const [hour, minute] = [Number(time[1]), Number(time[2])];
  if (hour > 23 || minute > 59) return { problem: `${quoteWords(word)} is not a time of day (00:00 to 23:59).` };
  return { hour, minute };
}

function unreadable(problem: string): WhenReading {
  return { kind: 'unreadable', message: `${problem} ${WHEN_FORMS}.` };
}

/** Plain quotes: the command echo (render/mrkdwn) escapes when the sentence is shown. */
function quoteWords(words: string): string {
  return `"${words.slice(0, 60)}"`;
}

// ---------------------------------------------------------------------------------------------
// Resolving to an instant

export type ResolvedWhen = { ok: true; at: number; zone: string } | { ok: false; message: string };

/**
 * The instant `spec` names, read in `spec.zone` or else `zone`, as seen at `now`: a full date must
 * be in the future; `at 09:00` and `at monday 06:00` are their next occurrence after `now`.
 */
export function resolveWhen(spec: WhenSpec, now: number, zone: string): ResolvedWhen {
  const inZone = spec.zone ?? zone;
  if (!isTimeZone(inZone)) return { ok: false, message: `${quoteWords(inZone)} is not a time zone I know.` };
  const today = wallClock(now, inZone);
  const candidates = candidateDays(spec.day, today);
  for (const day of candidates) {
    const local = Date.UTC(day.year, day.month - 1, day.day, spec.hour, spec.minute);
    const instant = instantOf(local, inZone);
    const label = `${isoDate(day)} ${pad(spec.hour)}:${pad(spec.minute)} ${inZone}`;
    // A skipped hour already behind us today does not matter: the next day's is looked at.
    if (instant === undefined && spec.day.kind !== 'date' && local <= today.local) continue;
    if (instant === undefined)
      return {
        ok: false,
        message:
          `${label} does not exist: the clocks skip that hour for daylight saving time. ` +
          'Pick a time outside the skipped hour.',
      };
    // `at 09:00` and `at monday 06:00` already behind us today mean the next one.
    if (instant <= now && spec.day.kind !== 'date') continue;
    const problem = applyAtProblem(instant, now);
    if (problem) return { ok: false, message: applyAtProblemText(problem, label, 'command') };
    return { ok: true, at: instant, zone: inZone };
  }
  return { ok: false, message: `I could not find the next ${spec.text}. ${WHEN_FORMS}.` };
}

const DAY_MS = 24 * 3600 * 1000;

// ---------------------------------------------------------------------------------------------
// The limits of a change's time, however it was given (`at TIME` or the edit form's picker)

/** The edit form's field for the time (render/modal.ts), named in its sentences. */
export const APPLY_AT_FIELD = 'Apply at';

/** Why an instant cannot be the time a change applies, as seen at `now`. */
export type ApplyAtProblem = 'passed' | 'too-soon' | 'too-far';

/** Past, closer than a minute (no time to approve it) or more than WHEN_MAX_AHEAD_DAYS ahead. */
export function applyAtProblem(at: number, now: number): ApplyAtProblem | undefined {
  if (at <= now) return 'passed';
  if (at - now < WHEN_MIN_AHEAD_MS) return 'too-soon';
  if (at - now > WHEN_MAX_AHEAD_DAYS * DAY_MS) return 'too-far';
  return undefined;
}

/** Where the time was given, which decides how the sentence says to give another or none. */
export type ApplyAtSource = 'command' | 'form';

const REMEDIES: Record<ApplyAtSource, Record<ApplyAtProblem, string>> = {
  command: {
    passed: `Give a time in the future. ${WHEN_FORMS}.`,
    'too-soon': 'Leave out at to have it applied as soon as it is approved, or give a later time.',
    'too-far': 'schedule it closer to the time.',
  },
  form: {
    passed: `Pick a time in the future, or leave ${APPLY_AT_FIELD} empty to have it applied as soon as it is approved.`,
    'too-soon': `Leave ${APPLY_AT_FIELD} empty to have it applied as soon as it is approved, or pick a later time.`,
    'too-far': `pick a time within ${WHEN_MAX_AHEAD_DAYS} days, or ask again closer to the time.`,
  },
};

/** The sentence refusing `label` (the time as "2026-12-01 09:00 Europe/Berlin") for `problem`, and what to do instead. */
export function applyAtProblemText(problem: ApplyAtProblem, label: string, source: ApplyAtSource): string {
  const remedy = REMEDIES[source][problem];
  switch (problem) {
    case 'passed':
      return `${label} has passed. ${remedy}`;
    case 'too-soon':
      return `${label} is less than a minute away, too soon to be approved before it. ${remedy}`;
    case 'too-far':
      return `${label} is more than ${WHEN_MAX_AHEAD_DAYS} days away: ${remedy}`;
  }
}

interface CalendarDay {
  year: number;
  month: number;
  day: number;
}

/** The local days the time may fall on, earliest first. */
function candidateDays(day: WhenDay, today: CalendarDay & { weekday: number }): CalendarDay[] {
  if (day.kind === 'date') return [day];
  const ahead = day.kind === 'weekday' ? (day.weekday - today.weekday + 7) % 7 : 0;
  const step = day.kind === 'weekday' ? 7 : 1;
  return [ahead, ahead + step].map((days) => addDays(today, days));
}

function addDays(day: CalendarDay, days: number): CalendarDay {
  const moved = new Date(Date.UTC(day.year, day.month - 1, day.day + days));
  return { year: moved.getUTCFullYear(), month: moved.getUTCMonth() + 1, day: moved.getUTCDate() };
}

/** The wall clock in `zone` at `instant`. */
function wallClock(instant: number, zone: string): CalendarDay & { weekday: number; local: number } {
  const parts: Record<string, number> = {};
  for (const part of zoneFormatter(zone).formatToParts(new Date(instant)))
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  const [year, month, day] = [parts.year ?? 1970, parts.month ?? 1, parts.day ?? 1];
  const local = Date.UTC(year, month - 1, day, parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0);
  return { year, month, day, weekday: new Date(Date.UTC(year, month - 1, day)).getUTCDay(), local };
}

/** Offset of `zone` from UTC at `instant`, in ms (whole seconds: sub-second parts are dropped). */
function offsetAt(instant: number, zone: string): number {
  const whole = Math.floor(instant / 1000) * 1000;
  return wallClock(whole, zone).local - whole;
}

/**
 * The instant a local wall-clock time (as ms of a UTC date) names in `zone`: undefined in a
 * skipped hour, the earlier one of a repeated hour. No zone moves its clocks twice within a day,
 * so the offsets a day before and after are the only ones to try.
 */
export function instantOf(local: number, zone: string): number | undefined {
  const offsets = [offsetAt(local - DAY_MS, zone), offsetAt(local + DAY_MS, zone)];
  const matches = offsets.map((offset) => local - offset).filter((instant) => wallClock(instant, zone).local === local);
  return matches.length === 0 ? undefined : Math.min(...matches);
}

function pad(value: number): string {
  return String(value).padStart(2, '0');
}

function isoDate(day: CalendarDay): string {
  return `${day.year}-${pad(day.month)}-${pad(day.day)}`;
}

/** "2026-12-01 09:00 Europe/Berlin": the instant in a zone, as fallback text where Slack's date formatting is not rendered. */
export function localLabel(instant: number, zone: string): string {
  const clock = wallClock(instant, zone);
  const time = new Date(clock.local);
  return `${isoDate(clock)} ${pad(time.getUTCHours())}:${pad(time.getUTCMinutes())} ${zone}`;
}
