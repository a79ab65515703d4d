/**
 * One scaling schedule entry as people write it (`add "NAME" DAYS HH:MM-HH:MM SETTINGS
 * [tz:Area/City]`), read in their zone as the UTC weekdays and whole hours the API keeps, and
 * whether two entries are in force at the same hour of the week.
 */
import { checkReplicaMemory, checkReplicas, checkSwitch, echo } from '../../command/arguments.js';
import { DURATION_FORMS, readSpokenDuration } from '../../command/duration.js';
import type { ArgumentReader } from '../../command/reader.js';
import type { Token } from '../../command/tokenize.js';
import { isTimeZone } from '../../schedule/cron.js';
import type { ScheduleEntryRequest } from '../../service/scaling-schedule.js';
import {
  clockText,
  DAY_NAMES,
  DAYS_FORMS,
  offsetMinutes,
  otherSeasonOffset,
  readClock,
  readClockRange,
  readDays,
} from '../../time/weekly.js';
import type { ScheduleEntryAsked } from '../types.js';

export const SCHEDULE_USAGE =
  'scaling-schedule SERVICE add "NAME" DAYS HH:MM-HH:MM [replicas N|MIN-MAX] [memory GB|MIN-MAX] [idle on [after 15m]|off] [tz:Area/City] | remove "NAME" | clear';

const SETTINGS_FORMS = 'replicas N or MIN-MAX, memory GB or MIN-MAX, idle on [after 15m], idle off';

/** The words after `add`: the name, the days, the hours, then the settings and an optional zone in any order. */
export function readEntry(words: Token[], read: ArgumentReader): ScheduleEntryAsked {
  const [name, daysWord, hoursWord, ...rest] = words;
  if (name === undefined || name.text.trim() === '')
    read.fail('Give the entry a name, in quotes if it has spaces, like add "business hours".');
  if (daysWord === undefined) read.fail(`After the name, give the days: ${DAYS_FORMS}.`);
  const days = readDays(daysWord.text);
  if ('problem' in days) read.fail(days.problem);
  const hours = hoursWord === undefined ? undefined : readClockRange(hoursWord.text);
  if (hours === undefined)
    read.fail('After the days, give the hours as HH:MM-HH:MM, like 08:00-18:00 (24:00 ends at midnight).');
  const entry: ScheduleEntryAsked = { name: name.text.trim(), days: days.days, ...hours };
  readSettings(rest, entry, read);
  if (!entry.replicas && !entry.memoryGb && !entry.idle) read.fail(`Say what the entry sets: ${SETTINGS_FORMS}.`);
  return entry;
}

function readSettings(words: Token[], entry: ScheduleEntryAsked, read: ArgumentReader): void {
  const once = (given: unknown, word: string) => {
    if (given !== undefined) read.fail(`Give ${word} once.`);
  };
  for (let at = 0; at < words.length; at++) {
    const word = (words[at] as Token).text;
    const next = words[at + 1]?.text;
    const lower = word.toLowerCase();
    if (lower === 'replicas' || lower === 'replica') {
      once(entry.replicas, 'replicas');
      entry.replicas = read.must(checkReplicas(next ?? ''));
      at++;
    } else if (lower === 'memory') {
      once(entry.memoryGb, 'memory');
      entry.memoryGb = read.must(checkReplicaMemory(next ?? ''));
      at++;
    } else if (lower === 'idle') {
      once(entry.idle, 'idle');
      const enabled = read.must(checkSwitch(next ?? ''));
      at++;
      if (enabled && words[at + 1]?.text.toLowerCase() === 'after') {
        const timeout = readSpokenDuration([words[at + 2]?.text ?? '']);
        if (timeout.kind !== 'duration')
          read.fail(`After how long? Write the idle timeout like after 15m. ${DURATION_FORMS}.`);
        entry.idle = { enabled, timeoutMinutes: timeout.ms / 60_000 };
        at += 2;
      } else entry.idle = { enabled };
    } else if (/^tz:/i.test(word)) {
      once(entry.zone, 'tz:');
      const zone = word.slice(3);
      if (!isTimeZone(zone))
        read.fail(`${echo(zone)} is not a time zone I know. Use Area/City, like tz:Europe/Berlin.`);
      entry.zone = zone;
    } else {
      read.fail(`I don't know what to do with ${echo(word)}. An entry sets ${SETTINGS_FORMS}.`);
    }
  }
}

/**
 * The entry's local days and hours as UTC weekdays and whole hours, at the zone's offset on the day
 * the request is made. A time that is not on a whole UTC hour is refused with the nearest local
 * times that are; a zone that moves its clocks gets a note with the local hours in the other season.
 */
export function entryInUtc(
  asked: ScheduleEntryAsked & { zone: string },
  now: number,
): Pick<ScheduleEntryAsked, 'utc' | 'note' | 'problem'> {
  const offset = offsetMinutes(asked.zone, now);
  const from = readClock(asked.from) ?? 0;
  const to = readClock(asked.to, true) ?? 0;
  for (const local of [from, to]) {
    const off = (((local - offset) % 60) + 60) % 60;
    if (off !== 0)
      return {
        problem: `A schedule runs on whole hours in UTC; ${clockText(local)} ${asked.zone} is ${clockText(local - offset)} UTC. The nearest that are: ${clockText(local - off)} or ${clockText(local - off + 60)} ${asked.zone}.`,
      };
  }
  if (from === to) return { problem: 'An entry ends at another time of day than it starts.' };
  const startUtc = from - offset;
  const shift = Math.floor(startUtc / 1440);
  const startHourUtc = (((startUtc % 1440) + 1440) % 1440) / 60;
  const endHour = ((((to - offset) % 1440) + 1440) % 1440) / 60;
  const utc = {
    weekdays: [...new Set(asked.days.map((day) => (((day + shift) % 7) + 7) % 7))].sort((a, b) => a - b),
    startHourUtc,
    endHourUtc: endHour === 0 ? 24 : endHour,
  };
  // A whole day that does not start at midnight UTC would start and end at the same UTC hour.
  if (utc.startHourUtc === utc.endHourUtc)
    return {
      problem: `A whole day in ${asked.zone} runs ${clockText(startUtc)}–${clockText(startUtc)} UTC, which one entry cannot hold: end it an hour earlier, or give the hours in UTC (00:00-24:00 tz:UTC).`,
    };
  const other = otherSeasonOffset(asked.zone, now);
  if (other === undefined) return { utc };
  const hours = `${clockText(startUtc + other)}–${clockText(to - offset + other)}`;
  return {
    utc,
    note: `${asked.zone} moves its clocks, and the schedule is kept in UTC: in the other half of the year "${asked.name}" runs ${hours} local time.`,
  };
}

/** The hours of the week (0 = Sunday 00:00 UTC) an entry is in force. */
function hoursOfWeek(entry: Pick<ScheduleEntryRequest, 'weekdays' | 'startHourUtc' | 'endHourUtc'>): Set<number> {
  const length = (entry.endHourUtc - entry.startHourUtc + 24) % 24 || 24;
  const hours = new Set<number>();
  for (const day of entry.weekdays)
    for (let hour = 0; hour < length; hour++) hours.add((day * 24 + entry.startHourUtc + hour) % (7 * 24));
  return hours;
}

/** Where two entries are both in force ("mon 16:00 UTC"), or undefined when they never are. */
export function overlapOf(a: ScheduleEntryRequest, b: ScheduleEntryRequest): string | undefined {
  const theirs = hoursOfWeek(b);
  const first = [...hoursOfWeek(a)].sort((x, y) => x - y).find((hour) => theirs.has(hour));
  if (first === undefined) return undefined;
  return `${DAY_NAMES[Math.floor(first / 24)] ?? 'sun'} ${clockText((first % 24) * 60)} UTC`;
}
