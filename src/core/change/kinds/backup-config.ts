/**
 * How a service is backed up (`PATCH …/services/{id}/backupConfiguration`): every N hours, kept
 * N days, from a start time. The first kind whose target is a part of the service the API keeps
 * apart (core/service/parts.ts): the part is read with the record wherever this plan is made or
 * checked, so its stale check, verification and Undo read it like any field.
 */
import { echo } from '../../command/arguments.js';
import type { ArgumentReader } from '../../command/reader.js';
import type { Token } from '../../command/tokenize.js';
import type { BackupConfiguration, BackupSettings } from '../../service/backup.js';
import type { BackupConfigurationUpdate } from '../../service/parts.js';
import type { ServiceRecord } from '../../service/schema.js';
import { instantOf } from '../../command/when.js';
import { zoneFormatter } from '../../time/zone-clock.js';
import { isTimeZone } from '../../schedule/cron.js';
import type { Risk } from '../../policy/types.js';
import type { BackupConfigIntent, ChangePlan, TouchedState } from '../types.js';
import type { ChangeKindModule, Draft, KindCommand } from './kind.js';

/** What ClickHouse Cloud does when nothing is customised: one backup a day, kept one day, no start time. */
export const DEFAULT_BACKUP_PERIOD_HOURS = 24;
export const DEFAULT_RETENTION_DAYS = 1;
export const MAX_BACKUP_PERIOD_HOURS = 24;
export const MAX_RETENTION_DAYS = 45;

const USAGE = 'backup-config SERVICE [every Nh] [keep Nd] [at HH:MM [tz:Area/City]] [default]';

const backupConfig: KindCommand = {
  name: 'backup-config',
  usage: USAGE,
  example: 'backup-config orders-prod every 12h keep 7d',
  more: ['backup-config orders-prod at 02:00 tz:Europe/Berlin', 'backup-config orders-prod default'],
  summary: `Request how a service is backed up: every 1-${MAX_BACKUP_PERIOD_HOURS} hours, kept 1-${MAX_RETENTION_DAYS} days, from a start time, or back to the defaults.`,
  ownsAt: true,
  parse(args: Token[], read: ArgumentReader) {
    const [service, ...rest] = args;
    const what = 'the service and what to change (every Nh, keep Nd, at HH:MM or default)';
    const value = read.service(service, what);
    if (rest.length === 0) read.missing(what);
    return read.change(value, { backupConfig: readSettings(rest, read) });
  },
};

/** The words after the service, in any order, each once. */
function readSettings(words: Token[], read: ArgumentReader): BackupConfigIntent {
  const intent: BackupConfigIntent = {};
  const once = (key: keyof BackupConfigIntent, word: string) => {
    if (intent[key] !== undefined) read.fail(`Give ${word} once.`);
  };
  for (let at = 0; at < words.length; at++) {
    const word = (words[at] as Token).text.toLowerCase();
    const next = words[at + 1]?.text;
    if (word === 'default' || word === 'defaults') {
      once('defaults', 'default');
      intent.defaults = true;
    } else if (word === 'every') {
      once('periodHours', 'every');
      intent.periodHours = wholeNumber(next, /^(\d+)\s*h(ours?)?$/i, 'every', 'every 12h', read);
      at++;
    } else if (word === 'keep') {
      once('retentionDays', 'keep');
      intent.retentionDays = wholeNumber(next, /^(\d+)\s*d(ays?)?$/i, 'keep', 'keep 7d', read);
      at++;
    } else if (word === 'at') {
      once('start', 'at');
      if (next === undefined || !/^([01]?\d|2[0-3]):[0-5]\d$/.test(next))
        read.fail(`After at, give a time of day as HH:MM, like this: backup-config orders-prod at 02:00`);
      const zoneWord = words[at + 2]?.text;
      const zone = zoneWord && /^tz:/i.test(zoneWord) ? zoneWord.slice(3) : undefined;
      if (zone !== undefined && !isTimeZone(zone))
        read.fail(`${echo(zone)} is not a time zone I know. Use Area/City, like tz:Europe/Berlin.`);
      intent.start = { local: next.padStart(5, '0'), ...(zone ? { zone } : {}) };
      at += zone === undefined ? 1 : 2;
    } else if (word === 'off' || word === 'none') {
      read.fail('Backups cannot be switched off; to back up less, write every 24h, or default.');
    } else {
      read.fail(`I don't know what to do with ${echo((words[at] as Token).text)}. Write: ${USAGE}`);
    }
  }
  if (intent.defaults && Object.keys(intent).length > 1)
    read.fail('default puts every setting back to its default: give it alone.');
  return intent;
}

function wholeNumber(
  word: string | undefined,
  pattern: RegExp,
  name: string,
  example: string,
  read: ArgumentReader,
): number {
  const match = word === undefined ? null : pattern.exec(word);
  if (!match) return read.fail(`After ${name}, give a whole number with its unit, like ${example}.`);
  return Number(match[1]);
}

export function settingsOf(part: BackupConfiguration | null): BackupSettings {
  return {
    periodHours: part?.backupPeriodInHours ?? DEFAULT_BACKUP_PERIOD_HOURS,
    retentionDays: Math.round((part?.backupRetentionPeriodInHours ?? 24 * DEFAULT_RETENTION_DAYS) / 24),
    start: part?.backupStartTime ?? null,
  };
}

const hours = (n: number) => (n === 1 ? '1 hour' : `${n} hours`);
const days = (n: number) => (n === 1 ? '1 day' : `${n} days`);
const startText = (start: string | null) => (start === null ? 'none' : `${start} UTC`);

/**
 * `at HH:MM` in the channel's zone (or the tz: given) as the UTC time the API keeps, read on the
 * day the request is made; where the zone moves its clocks, the note names the local time in the
 * other season. Called once, when the request is made (`localize`).
 */
export function startInUtc(
  local: string,
  zone: string,
  now: number,
): { utc: string; note?: string } | { problem: string } {
  const [hour = 0, minute = 0] = local.split(':').map(Number);
  const today = new Date(now);
  const wall = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate(), hour, minute);
  const instant = instantOf(wall, zone) ?? instantOf(wall + 3_600_000, zone);
  if (instant === undefined) return { problem: `${local} does not exist in ${zone} today.` };
  const utc = new Date(instant).toISOString().slice(11, 16);
  // Month by month over a year, not half a year on: summer time lasts seven or eight months in
  // most zones, so the day half a year on is often in the same season.
  const localAt = (at: number) => {
    const parts = zoneFormatter(zone).formatToParts(new Date(at));
    const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '00';
    return `${part('hour').padStart(2, '0')}:${part('minute').padStart(2, '0')}`;
  };
  const months = Array.from({ length: 12 }, (_, k) => localAt(instant + (k + 1) * 30 * 24 * 3_600_000));
  const otherSeason = months.find((time) => time !== local);
  if (zone === 'UTC' || otherSeason === undefined) return { utc };
  return {
    utc,
    note: `${local} ${zone} is ${utc} UTC now; ${zone} moves its clocks, so in the other half of the year the backups start at ${otherSeason} local time.`,
  };
}

function plan(draft: Draft, service: ServiceRecord, wanted: BackupConfigIntent): void {
  const part = service.parts?.backupConfiguration;
  if (part === undefined) {
    draft.problems.push({ field: 'backupConfig', message: "The service's backup configuration could not be read." });
    return;
  }
  const now = settingsOf(part);
  const problem = settingsProblem(wanted);
  if (problem) return void draft.problems.push({ field: 'backupConfig', message: problem });
  const body: BackupConfigurationUpdate = wanted.defaults
    ? { backupPeriodInHours: null, backupRetentionPeriodInHours: null, backupStartTime: null }
    : {
        ...(wanted.periodHours === undefined ? {} : { backupPeriodInHours: wanted.periodHours }),
        ...(wanted.retentionDays === undefined ? {} : { backupRetentionPeriodInHours: wanted.retentionDays * 24 }),
        ...(wanted.start === null ? { backupStartTime: null } : {}),
        ...(wanted.start?.utc === undefined ? {} : { backupStartTime: wanted.start.utc }),
      };
  const after = settingsAfter(now, body);
  const changes = [
    line('Backups every', hours(now.periodHours), hours(after.periodHours)),
    line('Backups kept', days(now.retentionDays), days(after.retentionDays)),
    line('Backups start', startText(now.start), startText(after.start)),
  ].flatMap((change) => change ?? []);
  if (changes.length === 0) {
    draft.unchanged.push({ field: 'backupConfig', message: 'The service is already backed up like that.' });
    return;
  }
  draft.writes.push({ endpoint: 'part', part: 'backupConfiguration', body });
  draft.touched.add('backupConfiguration');
  draft.changes.push(...changes);
  if (wanted.start?.note) draft.warnings.push(wanted.start.note);
  if (after.retentionDays < now.retentionDays)
    draft.warnings.push(
      `Backups older than ${days(after.retentionDays)} will be deleted: today they are kept ${days(now.retentionDays)}.`,
    );
  if (after.periodHours > now.periodHours)
    draft.warnings.push(
      `A restore could lose up to ${hours(after.periodHours)} of data instead of ${hours(now.periodHours)}.`,
    );

  function line(label: string, before: string, after: string) {
    return before === after ? undefined : { field: 'backupConfiguration' as const, label, before, after };
  }
}

function settingsProblem(wanted: BackupConfigIntent): string | undefined {
  const { periodHours, retentionDays, start } = wanted;
  if (periodHours !== undefined && (periodHours < 1 || periodHours > MAX_BACKUP_PERIOD_HOURS))
    return `Backups can run every 1 to ${MAX_BACKUP_PERIOD_HOURS} hours, not every ${periodHours}.`;
  if (retentionDays !== undefined && (retentionDays < 1 || retentionDays > MAX_RETENTION_DAYS))
    return `Backups can be kept 1 to ${MAX_RETENTION_DAYS} days (whole days), not ${retentionDays}.`;
  if (start && start.utc === undefined) return start.problem ?? 'The start time could not be read.';
  if (start && periodHours !== undefined && periodHours !== 24)
    return `A start time means one backup a day (every 24h): leave out every ${periodHours}h, or the start time.`;
  return undefined;
}

/** What the API will show once the body is applied (a start time resets the period to 24 h; null is the default). */
function settingsAfter(now: BackupSettings, body: BackupConfigurationUpdate): BackupSettings {
  const period = body.backupPeriodInHours;
  const retention = body.backupRetentionPeriodInHours;
  const start = body.backupStartTime;
  return {
    periodHours:
      typeof start === 'string' ? 24 : period === null ? DEFAULT_BACKUP_PERIOD_HOURS : (period ?? now.periodHours),
    retentionDays:
      retention === null ? DEFAULT_RETENTION_DAYS : retention === undefined ? now.retentionDays : retention / 24,
    start: start === undefined ? now.start : start,
  };
}

/** The body of this plan's PATCH …/backupConfiguration, if it has one. */
function backupBodyOf(plan: ChangePlan): BackupConfigurationUpdate | undefined {
  for (const operation of plan.operations ?? [])
    if (operation.endpoint === 'part' && operation.part === 'backupConfiguration') return operation.body ?? undefined;
  return undefined;
}

function planRisks(plan: ChangePlan): Risk[] {
  const before = plan.before.backupConfiguration;
  const body = backupBodyOf(plan);
  if (!before || !body) return [];
  const after = settingsAfter(before, body);
  const risks: Risk[] = [];
  if (after.retentionDays < before.retentionDays) risks.push('backup-retention-cut');
  if (after.periodHours > before.periodHours) risks.push('backup-less-often');
  return risks;
}

export const backupConfigKind: ChangeKindModule<'backupConfiguration'> = {
  field: 'backupConfiguration',
  policyName: 'backup-config',
  intents: ['backupConfig'],
  target: 'backupConfiguration',
  commands: [backupConfig],
  localize(intent, zone, now) {
    const start = intent.backupConfig?.start;
    if (!start || start.utc !== undefined) return intent;
    const resolved = startInUtc(start.local, start.zone ?? zone, now);
    const localized = 'problem' in resolved ? { ...start, problem: resolved.problem } : { ...start, ...resolved };
    return { ...intent, backupConfig: { ...intent.backupConfig, start: localized } };
  },
  read: (service) => {
    const part = service.parts?.backupConfiguration;
    return part === undefined ? null : settingsOf(part);
  },
  same: (a, b) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null),
  plan(draft, service, intent) {
    if (intent.backupConfig) plan(draft, service, intent.backupConfig);
  },
  // Not part of the record's update: its PATCH is verified on the part (operations.ts).
  visible: () => true,
  undo(plan, service, reverse) {
    const before: TouchedState['backupConfiguration'] = plan.before.backupConfiguration;
    if (!before) return;
    const now = service.parts?.backupConfiguration;
    const asLeft = planSettingsAfter(plan);
    if (now === undefined || !asLeft || JSON.stringify(settingsOf(now)) !== JSON.stringify(asLeft)) {
      reverse.leftAlone.push('The backup configuration no longer reads as this change left it.');
      return;
    }
    reverse.intent.backupConfig = {
      periodHours: before.periodHours,
      retentionDays: before.retentionDays,
      start: before.start === null ? null : { local: before.start, zone: 'UTC', utc: before.start },
    };
  },
  risks: planRisks,
  possibleRisks: ['backup-retention-cut', 'backup-less-often'],
};

function planSettingsAfter(plan: ChangePlan): BackupSettings | undefined {
  const before = plan.before.backupConfiguration;
  const body = backupBodyOf(plan);
  return before && body ? settingsAfter(before, body) : undefined;
}
