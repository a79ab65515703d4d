/**
 * The rules both stores follow, kept in one place so the memory store and the Redis store (whose
 * transition logic lives in Lua) cannot drift apart on anything that can be shared.
 */
import type { AuditAction, NewAuditEntry } from '../core/change/audit.js';
import { changeSummary } from '../core/change/summary.js';
import { requirementsAuditText } from '../core/policy/audit.js';
import type { ChangeRequest, ChangeStatus } from '../core/change/types.js';
import type { Approval } from '../core/policy/types.js';
import { z } from 'zod';
import type { PostedMessage } from '../ports/messenger.js';

/**
 * Once an update is on its way, the service's lock lasts until the request is settled; this long
 * expiry is only a backstop against a lock left behind for good.
 */
export const SENT_LOCK_MS = 24 * 60 * 60 * 1000;

/**
 * A request in "applying" without any lease was claimed by a replica older than leases, which
 * still follows the age rule: it is taken over only after this long, never under its feet.
 */
export const LEASELESS_TAKEOVER_AFTER_MS = 5 * 60 * 1000;

/** Finished requests stay readable this long after their expiry, to answer "already approved by X". */
export const DEFAULT_RETENTION_SECONDS = 7 * 24 * 60 * 60;

/** Audit entries are kept this long (AUDIT_RETENTION_DAYS), by age rather than by count. */
export const DEFAULT_AUDIT_RETENTION_DAYS = 400;

/** The in-process store also caps its entries, since its memory is the bot's own. */
export const MEMORY_AUDIT_MAX_ENTRIES = 100_000;

/** readAudit looks at no more than this many of the newest entries, however few match. */
export const AUDIT_SCAN_MAX = 5_000;

/** Message of the audit entry the store writes when it notices a pending request has expired. */
export const EXPIRED_BEFORE_DECISION = 'Expired before anyone decided.';

const AUDIT_ACTION_SET: Record<AuditAction, true> = {
  requested: true,
  approved: true,
  applied: true,
  failed: true,
  rejected: true,
  cancelled: true,
  expired: true,
  stale: true,
  'break-glass': true,
  reviewed: true,
};

export function isAuditAction(value: string): value is AuditAction {
  return Object.hasOwn(AUDIT_ACTION_SET, value);
}

export function assertCreatable(request: ChangeRequest): void {
  if (request.status !== 'pending') {
    throw new Error(`change request ${request.id} must be created pending, not ${request.status}`);
  }
}

export function duplicateRequestError(id: string): Error {
  return new Error(`change request ${id} already exists`);
}

/** Redis drops the request hash at this wall-clock time (ms); the memory store mirrors it. */
export function retentionDeadline(request: Pick<ChangeRequest, 'expiresAt'>, retentionSeconds: number): number {
  return request.expiresAt + retentionSeconds * 1000;
}

/** One line per request for the "requested" entry, e.g. "Name: a -> b; IP access: - -> 1.2.3.4/32". */

export function requestedAuditEntry(request: ChangeRequest): NewAuditEntry {
  return {
    at: request.createdAt,
    action: 'requested',
    changeId: request.id,
    actorId: request.requesterId,
    channelId: request.channelId,
    serviceId: request.plan.serviceId,
    serviceName: request.plan.serviceName,
    summary: changeSummary(request.plan.changes),
    // The rules in force and the policy file's digest, so the trail says what the request needed.
    ...(request.requirements ? { message: requirementsAuditText(request.requirements, request.policyDigest) } : {}),
    ...(request.organization ? { organization: request.organization } : {}),
    ...(request.reason ? { reason: request.reason } : {}),
    ...(request.ticket ? { ticket: request.ticket } : {}),
  };
}

/**
 * Redis stream fields cannot tell an empty string from an absent one, so neither store keeps
 * empty optional fields: both read back the same entry.
 */
export function withoutEmptyOptionals<T extends { apiRequestId?: string; message?: string }>(entry: T): T {
  const copy = { ...entry };
  if (!copy.apiRequestId) delete copy.apiRequestId;
  if (!copy.message) delete copy.message;
  return copy;
}

/** Oldest first; the id breaks ties so both stores list in the same order. */
export function byCreation(a: ChangeRequest, b: ChangeRequest): number {
  return a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** The approvals each requirement needs, as the Redis scripts read them ("2,1,0"); one for requests without requirements. */
export function neededApprovals(request: Pick<ChangeRequest, 'requirements'>): number[] {
  return request.requirements?.map((r) => r.approvals) ?? [1];
}

/** How many approvals count for each requirement. */
export function approvalTally(needed: readonly number[], approvals: ReadonlyArray<Pick<Approval, 'counts'>>): number[] {
  return needed.map((_, index) => approvals.filter((a) => a.counts.includes(index)).length);
}

export function leavesPending(from: ChangeStatus, to: ChangeStatus): boolean {
  return from === 'pending' && to !== 'pending';
}

/**
 * Whether a transition records who decided and when: leaving pending, and a scheduled request
 * ending before its time (cancelled, expired). Its start (to applying) keeps its approver.
 */
export function recordsDecider(from: ChangeStatus, to: ChangeStatus): boolean {
  return leavesPending(from, to) || (from === 'scheduled' && to !== 'scheduled' && to !== 'applying');
}

/** An audit entry as the stream fields both stores write (and the export reads), in a fixed order. */
export function auditFields(entry: NewAuditEntry): Record<string, string> {
  const fields: Record<string, string> = {
    at: String(entry.at),
    action: entry.action,
    changeId: entry.changeId,
    actorId: entry.actorId,
    channelId: entry.channelId,
    serviceId: entry.serviceId,
    serviceName: entry.serviceName,
    summary: entry.summary,
  };
  if (entry.apiRequestId) fields.apiRequestId = entry.apiRequestId;
  if (entry.message) fields.message = entry.message;
  if (entry.update) fields.update = JSON.stringify(entry.update);
  if (entry.fence !== undefined) fields.fence = String(entry.fence);
  if (entry.organization) fields.organization = entry.organization;
  if (entry.reason) fields.reason = entry.reason;
  if (entry.ticket) fields.ticket = entry.ticket;
  return fields;
}

/** A request's copies past this many keep the newest: DMs go to at most 50 people, plus escalations. */
export const MAX_COPIES = 100;

const CopySchema = z.object({ channelId: z.string().min(1), ts: z.string().min(1) });

/** Stored copies (JSON) as read back; one that cannot be read is skipped: nothing could update it. */
export function copiesFrom(stored: readonly string[]): PostedMessage[] {
  return stored.flatMap((text) => {
    try {
      const parsed = CopySchema.safeParse(JSON.parse(text));
      return parsed.success ? [parsed.data] : [];
    } catch {
      return [];
    }
  });
}
