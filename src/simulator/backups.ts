/**
 * Backups and the backup configuration of the simulated services (official OpenAPI document:
 * `GET …/backups`, `GET …/backups/{backupId}`, `GET`/`PATCH …/backupConfiguration`).
 *
 * Backups are not stored: they are derived from a service's configuration and the clock, so that
 * every read agrees with the one before it and a fake clock moves them too. A service is backed up
 * every `backupPeriodInHours` from its start time (midnight UTC unless `backupStartTime` is set);
 * the first backup of each UTC day is full and the others incremental; backups older than the
 * retention are gone; the newest one is still running for its first minutes; and one in every
 * eleven fails (which one is fixed by its id). A stopped service takes no new backups after it
 * stopped.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Outcome } from './records.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** A type, not an interface: it reads as the core's lenient record (which has an index signature). */
export type BackupConfiguration = {
  backupPeriodInHours: number;
  backupRetentionPeriodInHours: number;
  /** "HH:MM" UTC; absent unless set. */
  backupStartTime?: string;
};

/** What ClickHouse Cloud applies when nothing is customised: one backup a day, kept one day. */
export const DEFAULT_BACKUP_CONFIGURATION: Readonly<BackupConfiguration> = {
  backupPeriodInHours: 24,
  backupRetentionPeriodInHours: 24,
};

export interface BackupRecord {
  id: string;
  status: 'done' | 'error' | 'in_progress';
  serviceId: string;
  startedAt: string;
  finishedAt?: string;
  sizeInBytes: number;
  durationInSeconds: number;
  type: 'full' | 'incremental';
  backupName: string;
}

/** How long a backup runs: a full one longer than an incremental one. */
const FULL_BACKUP_SECONDS = 25 * 60;
const INCREMENTAL_BACKUP_SECONDS = 6 * 60;
/** The size of a service's full backup, before its daily growth (bytes, 10^9 per GB). */
const FULL_BACKUP_BYTES = 41e9;

/** A version-4-shaped id that is always the same for the same inputs. */
export function stableUuid(...parts: string[]): string {
  const hex = createHash('sha256').update(parts.join('\u0000')).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** Minutes past midnight UTC of "HH:MM"; 0 when absent. */
function startMinutes(startTime: string | undefined): number {
  if (startTime === undefined) return 0;
  const [hours = 0, minutes = 0] = startTime.split(':').map(Number);
  return hours * 60 + minutes;
}

/**
 * The service's backups at `now`, newest first: one every period from the start time, within the
 * retention, none after `takenUntil` (when the service stopped), none before it was created.
 */
export function backupsOf(
  serviceId: string,
  configuration: BackupConfiguration,
  now: number,
  options: { createdAt?: number; takenUntil?: number } = {},
): BackupRecord[] {
  const periodMs = configuration.backupPeriodInHours * HOUR_MS;
  const last = Math.min(now, options.takenUntil ?? now);
  const oldest = Math.max(now - configuration.backupRetentionPeriodInHours * HOUR_MS, options.createdAt ?? -Infinity);
  const offset = startMinutes(configuration.backupStartTime) * 60_000;
  const backups: BackupRecord[] = [];
  for (let at = Math.floor((last - offset) / periodMs) * periodMs + offset; at >= oldest; at -= periodMs) {
    backups.push(backupAt(serviceId, at, periodMs, now));
  }
  return backups;
}

function backupAt(serviceId: string, startedAt: number, periodMs: number, now: number): BackupRecord {
  const id = stableUuid(serviceId, 'backup', String(startedAt));
  const full = startedAt % DAY_MS < periodMs;
  const seconds = full ? FULL_BACKUP_SECONDS : INCREMENTAL_BACKUP_SECONDS;
  const running = now < startedAt + seconds * 1000;
  const failed = !running && Number.parseInt(id.slice(0, 8), 16) % 11 === 0;
  const growth = 1 + ((startedAt / DAY_MS) % 30) / 100;
  const size = Math.round((full ? FULL_BACKUP_BYTES : FULL_BACKUP_BYTES / 40) * growth);
  return {
    id,
    status: running ? 'in_progress' : failed ? 'error' : 'done',
    serviceId,
    startedAt: new Date(startedAt).toISOString(),
    ...(running ? {} : { finishedAt: new Date(startedAt + seconds * 1000).toISOString() }),
    sizeInBytes: running ? 0 : size,
    durationInSeconds: running ? Math.floor((now - startedAt) / 1000) : seconds,
    type: full ? 'full' : 'incremental',
    backupName: `${serviceId}/${new Date(startedAt).toISOString().replace(/[:.]/g, '-')}`,
  };
}

/** null resets a field to its default (the document); a field left out stays as it is. */
const BackupConfigurationPatchSchema = z.strictObject({
  backupPeriodInHours: z
    .number({ error: 'must be number' })
    .int({ error: 'must be a whole number of hours' })
    .min(1, { error: 'must be >= 1' })
    .max(24, { error: 'must be <= 24' })
    .nullable()
    .optional(),
  backupRetentionPeriodInHours: z
    .number({ error: 'must be number' })
    .refine((hours) => Number.isInteger(hours / 24) && hours >= 24 && hours <= 1080, {
      error: 'must be a whole number of days between 24 (1 day) and 1080 (45 days)',
    })
    .nullable()
    .optional(),
  backupStartTime: z
    .string({ error: 'must be string' })
    .regex(/^([01]\d|2[0-3]):[0-5]\d$/, { error: 'must be a time in HH:MM format' })
    .nullable()
    .optional(),
});

/** The configuration after a PATCH body, or the API's 400 sentence. */
export function patchBackupConfiguration(current: BackupConfiguration, body: unknown): Outcome<BackupConfiguration> {
  const parsed = BackupConfigurationPatchSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue?.path.map(String).join('.') ?? '';
    return { ok: false, message: `request body${path ? `.${path}` : ''}: '${issue?.message ?? 'is invalid'}'` };
  }
  const { backupPeriodInHours, backupRetentionPeriodInHours, backupStartTime } = parsed.data;
  const next: BackupConfiguration = { ...current };
  if (backupPeriodInHours !== undefined)
    next.backupPeriodInHours = backupPeriodInHours ?? DEFAULT_BACKUP_CONFIGURATION.backupPeriodInHours;
  if (backupRetentionPeriodInHours !== undefined)
    next.backupRetentionPeriodInHours =
      backupRetentionPeriodInHours ?? DEFAULT_BACKUP_CONFIGURATION.backupRetentionPeriodInHours;
  if (backupStartTime === null) delete next.backupStartTime;
  else if (backupStartTime !== undefined) {
    // "When defined the backup period resets to every 24 hours."
    next.backupStartTime = backupStartTime;
    next.backupPeriodInHours = 24;
  }
  return { ok: true, value: next };
}
