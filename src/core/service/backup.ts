/**
 * Backups and a service's backup configuration as the API answers them (official OpenAPI
 * document: `GET …/backups`, `GET …/backupConfiguration`), parsed leniently like service records:
 * one odd backup never hides the others. Sizes are in bytes; GB here are 10^9 bytes.
 */
import { z } from 'zod';
import { parseEach } from '../parse-each.js';
import { lenient } from './lenient.js';

export const BACKUP_STATUSES = ['done', 'error', 'in_progress'] as const;

export const BackupSchema = z.looseObject({
  id: z.string().min(1),
  status: z.enum(BACKUP_STATUSES).or(z.string()).catch('unknown'),
  startedAt: lenient(z.string()),
  finishedAt: lenient(z.string()),
  sizeInBytes: lenient(z.number()),
  durationInSeconds: lenient(z.number()),
  type: lenient(z.string()),
});
export type Backup = z.infer<typeof BackupSchema>;

export const BackupConfigurationSchema = z.looseObject({
  backupPeriodInHours: lenient(z.number()),
  backupRetentionPeriodInHours: lenient(z.number()),
  /** "HH:MM" UTC; null or absent when not set. */
  backupStartTime: lenient(z.string().nullable()),
});
export type BackupConfiguration = z.infer<typeof BackupConfigurationSchema>;

/** A backup configuration as changes compare it: the part read, with ClickHouse Cloud's defaults where absent. */
export interface BackupSettings {
  periodHours: number;
  retentionDays: number;
  /** "HH:MM" UTC, or null when none is set. */
  start: string | null;
}

/** The backups of a list that could be read, newest first, and how many could not. */
export function parseBackups(items: readonly unknown[]): { backups: Backup[]; skipped: number } {
  const { items: backups, skipped } = parseEach(BackupSchema, items);
  const at = (backup: Backup) => Date.parse(backup.startedAt ?? '') || 0;
  return { backups: backups.sort((a, b) => at(b) - at(a)), skipped };
}

/** The newest backup that finished well: what a restore of "latest" would use. */
export function lastGoodBackup(backups: readonly Backup[]): Backup | undefined {
  return backups.find((backup) => backup.status === 'done');
}
