/**
 * Weekly times as people write them (`mon-fri`, `sat,sun`, `09:00-18:00`) and as the API keeps
 * them (weekdays and whole hours in UTC): the upgrade window and the scaling schedule read local
 * days and times in a zone, on the day the request is made, and show them back in local time.
 * Pure: `now` is always given.
 */
import { wallClock } from '../policy/window.js';

export const DAY_NAMES = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
const DAY_WORDS: ReadonlyMap<string, number> = new Map(
  [
    ['sunday', 'sun'],
    ['monday', 'mon'],
    ['tuesday', 'tue', 'tues'],
    ['wednesday', 'wed'],
    ['thursday', 'thu', 'thur', 'thurs'],
    ['friday', 'fri'],
    ['saturday', 'sat'],
  ].flatMap((words, day) => words.map((word) => [word, day] as const)),
);
const GROUPS: ReadonlyMap<string, readonly number[]> = new Map([
  ['daily', [0, 1, 2, 3, 4, 5, 6]],
  ['everyday', [0, 1, 2, 3, 4, 5, 6]],
  ['weekdays', [1, 2, 3, 4, 5]],
  ['weekends', [0, 6]],
  ['weekend', [0, 6]],
]);

export const DAYS_FORMS = 'mon-fri, sat,sun, daily, weekdays, weekends, or a list like mon,wed,fri';

/** A weekday word (`sun`, `Sunday`): 0 = Sunday; undefined when it is none. */
export function readDay(word: string): number | undefined {
  return DAY_WORDS.get(word.toLowerCase());
}

/** DAYS: a group word, a range (`mon-fri`, `fri-mon` wraps), a comma list, or both; sorted, each once. */
export function readDays(text: string): { days: number[] } | { problem: string } {
  const group = GROUPS.get(text.toLowerCase());
  if (group) return { days: [...group] };
  const days = new Set<number>();
  for (const piece of text.split(',')) {
    const [fromWord = '', toWord, extra] = piece.split(/[-–]/u);
    const from = readDay(fromWord.trim());
    const to = toWord === undefined ? from : readDay(toWord.trim());
    if (from === undefined || to === undefined || extra !== undefined || piece.trim() === '')
      return { problem: `"${piece.slice(0, 30)}" is not a day. Write the days as ${DAYS_FORMS}.` };
    for (let day = from; ; day = (day + 1) % 7) {
      days.add(day);
      if (day === to) break;
    }
  }
  return { days: [...days].sort((a, b) => a - b) };
}

/** HH:MM (or H:MM) as minutes after midnight; `24:00` only where `endOfDay` allows it. */
export function readClock(text: string, endOfDay = false): number | undefined {
  const match = /^([01]?\d|2[0-4]):([0-5]\d)$/.exec(text);
  if (!match) return undefined;
  const minutes = Number(match[1]) * 60 + Number(match[2]);
  if (minutes > 24 * 60 || (minutes === 24 * 60 && !endOfDay)) return undefined;
  return minutes;
}

/** "09:00-18:00" as two clocks; the end may be 24:00. */
export function readClockRange(text: string): { from: string; to: string } | undefined {
  const [from = '', to = '', extra] = text.split(/[-–]/u);
  if (extra !== undefined || readClock(from) === undefined || readClock(to, true) === undefined) return undefined;
  return { from: from.padStart(5, '0'), to: to.padStart(5, '0') };
}

export const clockText = (minutes: number): string => {
  const inDay = ((minutes % 1440) + 1440) % 1440;
  return `${String(Math.floor(inDay / 60)).padStart(2, '0')}:${String(inDay % 60).padStart(2, '0')}`;
};

const WEEK_MINUTES = 7 * 1440;
const DAY_MS = 86_400_000;
/** How far ahead the other season is looked at: half a year. */
const OTHER_SEASON_MS = 182 * DAY_MS;

/** How many minutes `zone`'s clock is ahead of UTC at `at`. */
export function offsetMinutes(zone: string, at: number): number {
  const wall = wallClock(at, zone);
  const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, 0, wall.minute);
  return Math.round((asUtc - Math.floor(at / 60_000) * 60_000) / 60_000);
}

/** The offset half a year from now, when it differs from today's (the zone moves its clocks). */
export function otherSeasonOffset(zone: string, now: number): number | undefined {
  const other = offsetMinutes(zone, now + OTHER_SEASON_MS);
  return other === offsetMinutes(zone, now) ? undefined : other;
}

/** A minute of the week (0 = Sunday 00:00) moved by `minutes`, wrapping round the week. */
export const shiftWeek = (weekMinute: number, minutes: number): number =>
  (((weekMinute + minutes) % WEEK_MINUTES) + WEEK_MINUTES) % WEEK_MINUTES;

/** "sun 00:00" */
export const weekMinuteText = (weekMinute: number): string =>
  `${DAY_NAMES[Math.floor(weekMinute / 1440) % 7] ?? 'sun'} ${clockText(weekMinute % 1440)}`;

/** Weekdays as people read them: daily, mon–fri, sat,sun, or a list (mon,wed,fri). */
export function daysText(days: readonly number[]): string {
  const sorted = [...new Set(days)].sort((a, b) => a - b);
  if (sorted.length === 7) return 'daily';
  if (sorted.join() === '0,6') return 'sat,sun';
  const run = sorted.length > 2 && sorted.every((day, index) => index === 0 || day === (sorted[index - 1] ?? 0) + 1);
  if (run) return `${DAY_NAMES[sorted[0] ?? 0]}–${DAY_NAMES[sorted.at(-1) ?? 0]}`;
  return sorted.map((day) => DAY_NAMES[day]).join(',');
}
