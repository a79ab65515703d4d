/**
 * `backups SERVICE`: the line people ask for first ("when was the last good backup?"), how the
 * service is backed up, and its latest backups, newest first. Sizes in GB of 10^9 bytes.
 */
import { formatDuration } from '../change/durations.js';
import { lastGoodBackup, type Backup, type BackupConfiguration } from '../service/backup.js';
import type { ServiceRecord } from '../service/schema.js';
import {
  code,
  context,
  esc,
  header,
  packLines,
  section,
  serviceRef,
  serviceRefPlain,
  slackDate,
  type Block,
} from './mrkdwn.js';

/** The newest this many; the rest is a count (the console keeps them all). */
const SHOWN = 10;

const STATUS_ICONS: Record<string, string> = {
  done: ':white_check_mark:',
  error: ':x:',
  in_progress: ':hourglass_flowing_sand:',
};

const gigabytes = (bytes: number | undefined) =>
  bytes === undefined ? undefined : `${(bytes / 1e9).toFixed(bytes >= 10e9 ? 0 : 1)} GB`;

const startOf = (backup: Backup) => Date.parse(backup.startedAt ?? '');

function backupLine(backup: Backup): string {
  const started = startOf(backup);
  const parts = [
    `${STATUS_ICONS[backup.status] ?? ':grey_question:'} ${esc(backup.status.replace('_', ' '))}`,
    backup.type === undefined ? undefined : esc(backup.type),
    Number.isNaN(started) ? undefined : slackDate(started),
    backup.durationInSeconds === undefined ? undefined : formatDuration(backup.durationInSeconds * 1000),
    gigabytes(backup.sizeInBytes),
    code(backup.id.slice(0, 8)),
  ];
  return `• ${parts.filter((part) => part !== undefined).join(' · ')}`;
}

/** "Last good backup: 3 hours ago (full, 41 GB)", or that there is none. */
export function lastGoodBackupText(backups: readonly Backup[]): string {
  const good = lastGoodBackup(backups);
  if (good === undefined)
    return backups.length === 0
      ? ':warning: *No backups* of this service yet.'
      : ':warning: *No good backup*: none of its backups finished well.';
  const at = startOf(good);
  const details = [good.type, gigabytes(good.sizeInBytes)].filter((part) => part !== undefined).join(', ');
  const when = Number.isNaN(at) ? 'at an unknown time' : slackDate(at, '{ago}');
  return `*Last good backup:* ${when}${details ? ` (${esc(details)})` : ''}, ${code(good.id.slice(0, 8))}.`;
}

/** "Every 6 hours, kept 2 days, from 02:30 UTC"; why it is missing when it could not be read. */
export function backupConfigurationText(configuration: BackupConfiguration | undefined): string {
  if (configuration === undefined)
    return 'Backup schedule: not readable with this API key (reading it needs a key that may see the organization’s settings).';
  const { backupPeriodInHours: every, backupRetentionPeriodInHours: kept, backupStartTime: start } = configuration;
  const parts = [
    every === undefined ? undefined : `every ${every} ${every === 1 ? 'hour' : 'hours'}`,
    kept === undefined
      ? undefined
      : `kept ${kept % 24 === 0 ? `${kept / 24} ${kept === 24 ? 'day' : 'days'}` : `${kept} hours`}`,
    start ? `from ${esc(start)} UTC` : undefined,
  ].filter((part) => part !== undefined);
  return parts.length === 0 ? 'Backup schedule: not stated.' : `Backup schedule: ${parts.join(', ')}.`;
}

export function backupsBlocks(
  service: ServiceRecord,
  backups: readonly Backup[],
  configuration?: BackupConfiguration,
): Block[] {
  const shown = backups.slice(0, SHOWN).map(backupLine);
  const more = backups.length - shown.length;
  return [
    header(`Backups of ${serviceRefPlain(service.name, service.id)}`),
    section(
      `${serviceRef(service.name, service.id)}\n${lastGoodBackupText(backups)}\n${backupConfigurationText(configuration)}`,
    ),
    ...(shown.length > 0 ? packLines(shown, 20, (n) => `…and ${n} more`) : []),
    ...(more > 0
      ? [context(`${more} older ${more === 1 ? 'backup' : 'backups'} not shown; the console lists them all.`)]
      : []),
  ];
}
