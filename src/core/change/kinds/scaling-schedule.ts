/**
 * A service's scaling schedule (`POST`/`DELETE …/services/{id}/scalingSchedule`, beta): weekly
 * windows of whole UTC hours with the replicas, memory and idle scaling inside each. The API
 * replaces the whole list, so every request sends the whole list, shows it before → after, and is
 * stale when the list read at approval differs from the one it was asked against. Entries are
 * asked in local days and times (schedule-entry.ts reads them) and kept in UTC.
 */
import { echo } from '../../command/arguments.js';
import type { ArgumentReader } from '../../command/reader.js';
import type { Token } from '../../command/tokenize.js';
import { idleTimeoutProblem, memorySizeProblems, replicaCountProblems } from '../../capacity/plan.js';
import {
  entriesOf,
  sameEntries,
  scalingText,
  type ScalingScheduleUpdate,
  type ScheduleEntryRequest,
} from '../../service/scaling-schedule.js';
import type { ServiceRecord } from '../../service/schema.js';
import { clockText, daysText } from '../../time/weekly.js';
import type { ChangePlan, ScalingScheduleIntent, ScheduleEntryAsked } from '../types.js';
import type { ChangeKindModule, Draft, KindCommand } from './kind.js';
import { entryInUtc, overlapOf, readEntry, SCHEDULE_USAGE } from './schedule-entry.js';

const scalingSchedule: KindCommand = {
  name: 'scaling-schedule',
  usage: SCHEDULE_USAGE,
  example: 'scaling-schedule orders-prod add "business hours" mon-fri 08:00-18:00 replicas 6',
  more: [
    'scaling-schedule orders-prod add "night" daily 22:00-06:00 memory 16 tz:Europe/Berlin',
    'scaling-schedule orders-prod add "weekend" sat,sun 00:00-24:00 idle on after 15m tz:UTC',
    'scaling-schedule billing-prod remove "night"',
    'scaling-schedule billing-prod clear',
  ],
  summary:
    'Request a change to a service\'s scaling schedule: add an entry (days, hours in your time, replicas, memory, idle), remove one by name, or clear it. The schedule alone: "scaling-schedule SERVICE".',
  fixedWords: 3,
  parse(args: Token[], read: ArgumentReader) {
    const [service, verb, ...rest] = args;
    const what = 'the service, then add, remove or clear';
    const value = read.service(service, what);
    if (verb === undefined) read.missing(what);
    const word = verb.text.toLowerCase();
    if (word === 'clear') {
      read.rejectExtra(rest, 'clear alone', '');
      return read.change(value, { scalingSchedule: { clear: true } });
    }
    if (word === 'remove' || word === 'delete') {
      const [name, ...extra] = rest;
      if (name === undefined) read.fail('Say which entry to remove, by its name in quotes, like remove "night".');
      read.rejectExtra(extra, 'one entry name (in quotes if it has spaces)');
      return read.change(value, { scalingSchedule: { remove: name.text } });
    }
    if (word === 'add') return read.change(value, { scalingSchedule: { add: readEntry(rest, read) } });
    return read.fail(`scaling-schedule can add, remove or clear, not ${echo(verb.text)}. Write: ${SCHEDULE_USAGE}`);
  },
};

/** "business hours: mon-fri 08:00–18:00 UTC, 6 × 32 GB" */
function entryText(entry: ScheduleEntryRequest): string {
  const hours = `${clockText(entry.startHourUtc * 60)}–${entry.endHourUtc === 24 ? '24:00' : clockText(entry.endHourUtc * 60)}`;
  return `${entry.name}: ${daysText(entry.weekdays)} ${hours} UTC, ${scalingText(entry)}`;
}

/** The list as people read it: one entry a line, `+` before an added one, `−` before one removed. */
function scheduleText(entries: readonly ScheduleEntryRequest[], marks?: { added: Set<string>; removed: string[] }) {
  if (entries.length === 0 && !marks?.removed.length) return 'no schedule';
  const lines = entries.map((entry) => `${marks?.added.has(entry.name) ? '+' : ' '} ${entryText(entry)}`);
  return [...lines, ...(marks?.removed ?? []).map((line) => `− ${line}`)].join('\n');
}

const sameName = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/** The whole list once the intent is applied, or why it cannot be. */
function listAfter(
  service: ServiceRecord,
  now: ScheduleEntryRequest[],
  wanted: ScalingScheduleIntent,
): { entries: ScheduleEntryRequest[]; note?: string } | { problem: string } | { unchanged: string } {
  if (wanted.entries) return { entries: wanted.entries };
  if (wanted.clear)
    return now.length === 0 ? { unchanged: `${service.name} has no scaling schedule.` } : { entries: [] };
  if (wanted.remove !== undefined) {
    const name = wanted.remove;
    if (!now.some((entry) => sameName(entry.name, name)))
      return {
        problem: `${service.name}'s scaling schedule has no entry called "${name}"${now.length ? `; it has ${now.map((e) => `"${e.name}"`).join(', ')}` : ''}.`,
      };
    return { entries: now.filter((entry) => !sameName(entry.name, name)) };
  }
  if (wanted.add) return added(service, now, wanted.add);
  return { problem: 'Say what to change in the scaling schedule: add, remove or clear.' };
}

function added(
  service: ServiceRecord,
  now: ScheduleEntryRequest[],
  asked: ScheduleEntryAsked,
): { entries: ScheduleEntryRequest[]; note?: string } | { problem: string } {
  if (asked.problem) return { problem: asked.problem };
  if (!asked.utc) return { problem: 'The hours of the entry could not be read.' };
  if (now.some((entry) => sameName(entry.name, asked.name)))
    return {
      problem: `The schedule has an entry called "${asked.name}" already: remove it first, or pick another name.`,
    };
  const bounds = settingsProblems(service, asked);
  if (bounds.length > 0) return { problem: bounds.join(' ') };
  const entry = entryRequest(asked, asked.utc);
  for (const other of now) {
    const overlap = overlapOf(entry, other);
    if (overlap)
      return {
        problem: `"${asked.name}" overlaps the entry "${other.name}" (${entryText(other)}) on ${overlap}. Change the days or hours, or remove "${other.name}" first.`,
      };
  }
  return { entries: [...now, entry], ...(asked.note ? { note: asked.note } : {}) };
}

/** The bounds `scale` and `idle` check, and what a horizontal entry needs. */
function settingsProblems(service: ServiceRecord, asked: ScheduleEntryAsked): string[] {
  const { replicas, memoryGb, idle } = asked;
  const problems = [
    ...(replicas ? replicaCountProblems(replicas.min, replicas.max) : []),
    ...(memoryGb ? memorySizeProblems(service, memoryGb.min, memoryGb.max) : []),
    ...[idleTimeoutProblem(idle?.timeoutMinutes)].flatMap((problem) => problem ?? []),
  ];
  if (replicas && replicas.min < replicas.max && (!memoryGb || memoryGb.min !== memoryGb.max))
    problems.push(
      `A replica range scales the entry horizontally: every replica then has the same memory, so give one size too, like memory 32.`,
    );
  return problems;
}

function entryRequest(asked: ScheduleEntryAsked, utc: NonNullable<ScheduleEntryAsked['utc']>): ScheduleEntryRequest {
  const { replicas, memoryGb, idle } = asked;
  return {
    name: asked.name,
    weekdays: utc.weekdays,
    startHourUtc: utc.startHourUtc,
    endHourUtc: utc.endHourUtc,
    autoscalingMode: replicas && replicas.min < replicas.max ? 'horizontal' : 'vertical',
    ...(memoryGb ? { minReplicaMemoryGb: memoryGb.min, maxReplicaMemoryGb: memoryGb.max } : {}),
    ...(replicas ? { minReplicas: replicas.min, maxReplicas: replicas.max } : {}),
    ...(idle ? { idleScaling: idle.enabled } : {}),
    ...(idle?.timeoutMinutes === undefined ? {} : { idleTimeoutMinutes: idle.timeoutMinutes }),
  };
}

function plan(draft: Draft, service: ServiceRecord, wanted: ScalingScheduleIntent): void {
  const part = service.parts?.scalingSchedule;
  if (part === undefined) {
    draft.problems.push({ field: 'scalingSchedule', message: "The service's scaling schedule could not be read." });
    return;
  }
  const now = entriesOf(part);
  const after = listAfter(service, now, wanted);
  if ('problem' in after) return void draft.problems.push({ field: 'scalingSchedule', message: after.problem });
  if ('unchanged' in after) return void draft.unchanged.push({ field: 'scalingSchedule', message: after.unchanged });
  if (sameEntries(now, after.entries)) {
    draft.unchanged.push({
      field: 'scalingSchedule',
      message: `${service.name}'s scaling schedule is already like that.`,
    });
    return;
  }
  const body: ScalingScheduleUpdate | null = after.entries.length === 0 ? null : { entries: after.entries };
  draft.writes.push({ endpoint: 'part', part: 'scalingSchedule', body });
  draft.touched.add('scalingSchedule');
  const key = (entry: ScheduleEntryRequest) => entryText(entry);
  const before = new Set(now.map(key));
  const kept = new Set(after.entries.map(key));
  draft.changes.push({
    field: 'scalingSchedule',
    label: 'Scaling schedule',
    before: scheduleText(now),
    after: scheduleText(after.entries, {
      added: new Set(after.entries.filter((entry) => !before.has(key(entry))).map((entry) => entry.name)),
      removed: now.filter((entry) => !kept.has(key(entry))).map(entryText),
    }),
  });
  if ('note' in after && after.note) draft.warnings.push(after.note);
  if (body === null) draft.warnings.push('Without a schedule, the base configuration applies at all times.');
}

function bodyOf(plan: ChangePlan): ScalingScheduleUpdate | null | undefined {
  for (const operation of plan.operations ?? [])
    if (operation.endpoint === 'part' && operation.part === 'scalingSchedule') return operation.body;
  return undefined;
}

export const scalingScheduleKind: ChangeKindModule<'scalingSchedule'> = {
  field: 'scalingSchedule',
  policyName: 'scaling-schedule',
  intents: ['scalingSchedule'],
  target: 'scalingSchedule',
  commands: [scalingSchedule],
  localize(intent, zone, now) {
    const add = intent.scalingSchedule?.add;
    if (!add || add.utc !== undefined || add.problem !== undefined) return intent;
    const local = { ...add, zone: add.zone ?? zone };
    return { ...intent, scalingSchedule: { ...intent.scalingSchedule, add: { ...local, ...entryInUtc(local, now) } } };
  },
  read: (service) => {
    const part = service.parts?.scalingSchedule;
    return part === undefined ? null : entriesOf(part);
  },
  same: (a, b) => a !== undefined && b !== undefined && sameEntries(a, b),
  plan(draft, service, intent) {
    if (intent.scalingSchedule) plan(draft, service, intent.scalingSchedule);
  },
  // Not part of the record's update: the list is verified whole on the part (operations.ts).
  visible: () => true,
  undo(plan, service, reverse) {
    const before = plan.before.scalingSchedule;
    const body = bodyOf(plan);
    const now = scalingScheduleKind.read(service);
    if (before === undefined || body === undefined) return;
    if (now === null || !sameEntries(now, body?.entries ?? [])) {
      reverse.leftAlone.push('The scaling schedule no longer reads as this change left it.');
      return;
    }
    reverse.intent.scalingSchedule = { entries: before };
  },
  risks: () => [],
  possibleRisks: [],
};
