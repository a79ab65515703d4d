/**
 * When ClickHouse Cloud may upgrade a service (`PUT`/`DELETE …/services/{id}/upgradeWindow`): a
 * weekday and a start hour of 0, 6, 12 or 18 UTC, six hours long, on primary services only (their
 * warehouse's secondaries follow them). Asked in local time, taken when it is one of those starts.
 * A freeze does not hold it back: moving upgrades out of a freeze is what a freeze asks for.
 */
import { echo } from '../../command/arguments.js';
import type { ArgumentReader } from '../../command/reader.js';
import type { Token } from '../../command/tokenize.js';
import { isTimeZone } from '../../schedule/cron.js';
import type { ServiceRecord } from '../../service/schema.js';
import {
  UPGRADE_WINDOW_HOURS,
  UPGRADE_WINDOW_START_HOURS,
  type UpgradeWindowUpdate,
} from '../../service/upgrade-window.js';
import {
  clockText,
  DAY_NAMES,
  offsetMinutes,
  otherSeasonOffset,
  readClock,
  readDay,
  shiftWeek,
  weekMinuteText,
} from '../../time/weekly.js';
import type { ChangePlan, TouchedState, UpgradeWindowIntent, UpgradeWindowSetting } from '../types.js';
import type { ChangeKindModule, Draft, KindCommand } from './kind.js';

const USAGE = 'upgrade-window SERVICE DAY HH:MM [tz:Area/City] | off';
const STARTS = UPGRADE_WINDOW_START_HOURS.map((hour) => `${String(hour).padStart(2, '0')}:00`).join(', ');

const upgradeWindow: KindCommand = {
  name: 'upgrade-window',
  usage: USAGE,
  example: 'upgrade-window orders-prod sun 00:00',
  more: ['upgrade-window orders-prod sun 09:00 tz:Asia/Tokyo', 'upgrade-window billing-prod off'],
  summary: `Request when ClickHouse Cloud may upgrade a service: a weekly ${UPGRADE_WINDOW_HOURS}-hour window starting at ${STARTS} UTC (given in your time), or off. Freezes do not hold it back.`,
  parse(args: Token[], read: ArgumentReader) {
    const [service, ...rest] = args;
    const what = 'the service and a day and time (like sun 00:00), or off';
    const value = read.service(service, what);
    if (rest.length === 0) read.missing(what);
    return read.change(value, { upgradeWindow: readWindow(rest, read) });
  },
};

function readWindow(words: Token[], read: ArgumentReader): UpgradeWindowIntent {
  const [first, time, zoneWord, ...extra] = words.map((word) => word.text);
  if (first?.toLowerCase() === 'off' || first?.toLowerCase() === 'none') {
    if (words.length > 1) read.rejectExtra(words.slice(1), 'off alone', '');
    return { off: true };
  }
  const weekday = readDay(first ?? '');
  if (weekday === undefined)
    read.fail(`${echo(first ?? '')} is not a day of the week. Write it like this: ${read.spec.example}`);
  if (time === undefined || readClock(time) === undefined)
    read.fail(`After the day, give the start as HH:MM, like this: ${read.spec.example}`);
  let zone: string | undefined;
  if (zoneWord !== undefined) {
    if (!/^tz:/i.test(zoneWord)) read.rejectExtra(words.slice(2), 'a day, a time and optionally tz:Area/City', '');
    zone = zoneWord.slice(3);
    if (!isTimeZone(zone)) read.fail(`${echo(zone)} is not a time zone I know. Use Area/City, like tz:Europe/Berlin.`);
  }
  if (extra.length > 0) read.rejectExtra(words.slice(3), 'a day, a time and optionally tz:Area/City', '');
  return { local: { weekday, time: time.padStart(5, '0'), ...(zone ? { zone } : {}) } };
}

const WEEK_STARTS: readonly number[] = [0, 1, 2, 3, 4, 5, 6].flatMap((day) =>
  UPGRADE_WINDOW_START_HOURS.map((hour) => day * 1440 + hour * 60),
);

/**
 * The local day and time as the UTC start the API takes, at the zone's offset today; when it is
 * none of the allowed starts, the nearest that are, before and after, in local time.
 */
export function windowInUtc(
  local: { weekday: number; time: string },
  zone: string,
  now: number,
): Pick<UpgradeWindowIntent, 'utc' | 'note' | 'problem'> {
  const offset = offsetMinutes(zone, now);
  const localMinute = local.weekday * 1440 + (readClock(local.time) ?? 0);
  const utcMinute = shiftWeek(localMinute, -offset);
  const asked = `${weekMinuteText(localMinute)} ${zone}`;
  if (!WEEK_STARTS.includes(utcMinute)) {
    const later = WEEK_STARTS.find((start) => start > utcMinute) ?? 0;
    // Before the first start of the week (Sunday 00:00 UTC) comes the last one (Saturday 18:00).
    const earlier = [...WEEK_STARTS].reverse().find((start) => start < utcMinute) ?? Math.max(...WEEK_STARTS);
    const nearest = [earlier, later].map((start) => weekMinuteText(shiftWeek(start, offset))).join(' or ');
    return {
      problem: `An upgrade window starts at ${STARTS} UTC; ${asked} is ${weekMinuteText(utcMinute)} UTC. The nearest that do, in ${zone}: ${nearest}.`,
    };
  }
  const utc = { weekday: Math.floor(utcMinute / 1440), startHourUtc: (utcMinute % 1440) / 60 };
  const other = otherSeasonOffset(zone, now);
  if (other === undefined) return { utc };
  const note = `${zone} moves its clocks: in the other half of the year this window starts at ${weekMinuteText(shiftWeek(utcMinute, other))} local time (it is kept in UTC).`;
  return { utc, note };
}

const isSetting = (value: TouchedState['upgradeWindow']): value is UpgradeWindowSetting =>
  typeof value === 'object' && value !== null;

/** "sun 00:00–06:00 UTC", with the start as asked in local time ("sun 01:00 Europe/Berlin") */
function windowText(value: TouchedState['upgradeWindow'], local?: UpgradeWindowIntent['local']): string {
  if (!isSetting(value)) return 'none (upgrades at any time)';
  const start = value.startHourUtc * 60;
  const utc = `${DAY_NAMES[value.weekday] ?? 'sun'} ${clockText(start)}–${clockText(start + UPGRADE_WINDOW_HOURS * 60)} UTC`;
  if (local?.zone === undefined || local.zone === 'UTC') return utc;
  return `${utc} (${DAY_NAMES[local.weekday] ?? 'sun'} ${local.time} ${local.zone})`;
}

function plan(draft: Draft, service: ServiceRecord, wanted: UpgradeWindowIntent): void {
  const part = service.parts?.upgradeWindow;
  const problem = (message: string) => draft.problems.push({ field: 'upgradeWindow', message });
  if (part === undefined) return void problem("The service's upgrade window could not be read.");
  if (service.isPrimary === false)
    return void problem(
      `${service.name} is a secondary service: it follows the upgrade window of its warehouse's primary service. Set the window there.`,
    );
  if (wanted.problem) return void problem(wanted.problem);
  const now: TouchedState['upgradeWindow'] = part === null ? 'none' : settingOf(part);
  const body: UpgradeWindowUpdate | null = wanted.off ? null : (wanted.utc ?? null);
  if (!wanted.off && body === null) return void problem('The start of the upgrade window could not be read.');
  if (JSON.stringify(body ?? 'none') === JSON.stringify(now)) {
    draft.unchanged.push({ field: 'upgradeWindow', message: `${service.name} already has that upgrade window.` });
    return;
  }
  draft.writes.push({ endpoint: 'part', part: 'upgradeWindow', body });
  draft.touched.add('upgradeWindow');
  draft.changes.push({
    field: 'upgradeWindow',
    label: 'Upgrade window',
    before: windowText(now),
    after: windowText(body ?? 'none', wanted.local),
  });
  if (wanted.note) draft.warnings.push(wanted.note);
  if (body === null) draft.warnings.push('Without a window, ClickHouse Cloud may upgrade the service at any time.');
}

const settingOf = (part: { weekday: number; startHourUtc: number }): UpgradeWindowSetting => ({
  weekday: part.weekday,
  startHourUtc: part.startHourUtc,
});

function bodyOf(plan: ChangePlan): UpgradeWindowUpdate | null | undefined {
  for (const operation of plan.operations ?? [])
    if (operation.endpoint === 'part' && operation.part === 'upgradeWindow') return operation.body;
  return undefined;
}

export const upgradeWindowKind: ChangeKindModule<'upgradeWindow'> = {
  field: 'upgradeWindow',
  policyName: 'upgrade-window',
  intents: ['upgradeWindow'],
  target: 'upgradeWindow',
  commands: [upgradeWindow],
  ignoresFreezes: true,
  localize(intent, zone, now) {
    const wanted = intent.upgradeWindow;
    if (!wanted?.local || wanted.utc !== undefined) return intent;
    const local = { ...wanted.local, zone: wanted.local.zone ?? zone };
    return { ...intent, upgradeWindow: { ...wanted, local, ...windowInUtc(local, local.zone, now) } };
  },
  read: (service) => {
    const part = service.parts?.upgradeWindow;
    return part === undefined ? null : part === null ? 'none' : settingOf(part);
  },
  same: (a, b) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null),
  plan(draft, service, intent) {
    if (intent.upgradeWindow) plan(draft, service, intent.upgradeWindow);
  },
  // Not part of the record's update: its PUT or DELETE is verified on the part (operations.ts).
  visible: () => true,
  undo(plan, service, reverse) {
    const before = plan.before.upgradeWindow;
    const body = bodyOf(plan);
    const now = upgradeWindowKind.read(service);
    if (before === undefined || body === undefined) return;
    if (JSON.stringify(now) !== JSON.stringify(body ?? 'none')) {
      reverse.leftAlone.push('The upgrade window no longer reads as this change left it.');
      return;
    }
    reverse.intent.upgradeWindow = isSetting(before)
      ? { local: { weekday: before.weekday, time: clockText(before.startHourUtc * 60), zone: 'UTC' }, utc: before }
      : { off: true };
  },
  risks: () => [],
  possibleRisks: [],
};
