/**
 * Deleting a stopped service (`DELETE …/services/{id}`): for good, so it asks more than any other
 * change. Only a stopped service; the request shows the last good backup and warns loudly when
 * there is none from the last 48 hours; unless a rule says otherwise it needs two approvals, and
 * each approver types the service's name; it is never temporary and never break-glass.
 */
import type { ArgumentReader } from '../../command/reader.js';
import type { Token } from '../../command/tokenize.js';
import { lastGoodBackup, type Backup } from '../../service/backup.js';
import type { ServiceRecord } from '../../service/schema.js';
import type { ChangeKindModule, Draft, KindCommand } from './kind.js';

/** A backup older than this is no comfort before a delete. */
export const RECENT_BACKUP_MS = 48 * 3_600_000;
/** Approvals a delete needs when no policy rule names it. */
export const DELETE_DEFAULT_APPROVALS = 2;

const deleteCommand: KindCommand = {
  name: 'delete',
  usage: 'delete SERVICE',
  example: 'delete orders-staging',
  summary: 'Request that a stopped service be deleted, for good (two approvals, each typing its name).',
  parse(args: Token[], read: ArgumentReader) {
    const { args: words, durationMs } = read.splitDuration(args, 1);
    if (durationMs !== undefined)
      read.fail('A delete is for good: it is never temporary, and never break-glass. Leave the for out.');
    const [service, ...extra] = words;
    const value = read.service(service, 'which service');
    read.rejectExtra(extra, 'one service');
    return read.change(value, { delete: {} });
  },
};

const GB = 1e9;

/** "last good backup: 3 h ago (full, 41 GB)", from the backup's start (the API's time). */
export function lastGoodBackupLine(backup: Backup | undefined, now: number): string {
  if (!backup) return 'no good backup';
  const at = Date.parse(backup.startedAt ?? '');
  const hours = Number.isNaN(at) ? undefined : Math.max(0, Math.round((now - at) / 3_600_000));
  const age =
    hours === undefined ? 'at an unknown time' : hours < 48 ? `${hours} h ago` : `${Math.round(hours / 24)} days ago`;
  const size = backup.sizeInBytes === undefined ? '' : `, ${Math.round(backup.sizeInBytes / GB)} GB`;
  return `last good backup: ${age} (${backup.type ?? 'unknown type'}${size})`;
}

function plan(draft: Draft, service: ServiceRecord, now: number | undefined): void {
  if (service.state !== 'stopped') {
    draft.problems.push({
      field: 'delete',
      message: `Only a stopped service can be deleted, and ${service.name || service.id} is ${service.state ?? 'in an unknown state'}: stop it first with \`/clickhouse stop ${service.name || service.id}\`.`,
    });
    return;
  }
  draft.touched.add('deletion');
  draft.writes.push({ endpoint: 'delete' });
  draft.changes.push({ field: 'deletion', label: 'Service', before: 'stopped', after: 'deleted, for good' });
  const backups = service.parts?.backups;
  if (backups === undefined || now === undefined) {
    // Warnings are plain text: the request shows each escaped, in bold, behind :warning:.
    draft.warnings.push('The backups could not be read: check them with the backups command before approving.');
    return;
  }
  const good = lastGoodBackup(backups ?? []);
  const at = Date.parse(good?.startedAt ?? '');
  const line = lastGoodBackupLine(good, now);
  if (!good || Number.isNaN(at) || now - at > RECENT_BACKUP_MS)
    draft.warnings.push(
      `No good backup from the last 48 hours (${line}): once deleted, what changed since cannot be restored.`,
    );
  else draft.warnings.push(`The ${line}.`);
}

export const deleteKind: ChangeKindModule<'deletion'> = {
  field: 'deletion',
  policyName: 'delete',
  intents: ['delete'],
  reads: ['backups'],
  commands: [deleteCommand],
  defaultApprovals: DELETE_DEFAULT_APPROVALS,
  confirmByName: true,
  noUndo: true,
  // The backups are judged against the day it is asked: read with the clock once, when asked.
  localize: (intent, _zone, now) =>
    intent.delete && intent.delete.askedAt === undefined ? { ...intent, delete: { askedAt: now } } : intent,
  read: (service) => service.state ?? null,
  same: (a, b) => (a ?? null) === (b ?? null),
  plan(draft, service, intent) {
    if (intent.delete) plan(draft, service, intent.delete.askedAt);
  },
  visible: () => true,
  undo(plan, _service, reverse) {
    if ('deletion' in plan.before)
      reverse.leftAlone.push('A deleted service cannot be brought back: restore it from a backup with `restore`.');
  },
  risks: (plan) => ('deletion' in plan.before ? ['delete'] : []),
  possibleRisks: ['delete'],
};
