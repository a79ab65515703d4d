import type { AuditEntry, NewAuditEntry } from '../core/change/audit.js';
import type { ChangeOutcome, ChangeRequest, ChangeStatus } from '../core/change/types.js';

export type TransitionResult =
  | { ok: true; request: ChangeRequest }
  /** The request is not in a state the transition starts from (already decided, applying...). */
  | { ok: false; reason: 'conflict'; request: ChangeRequest }
  /** It was pending but past its expiry: the store marked it expired instead. */
  | { ok: false; reason: 'expired'; request: ChangeRequest }
  | { ok: false; reason: 'missing' };

export interface Transition {
  from: readonly ChangeStatus[];
  to: ChangeStatus;
  actorId: string;
  now: number;
  outcome?: ChangeOutcome;
  /** Written to the audit stream in the same atomic step as the status change. */
  audit: Omit<NewAuditEntry, 'at' | 'changeId' | 'actorId' | 'channelId' | 'serviceId' | 'serviceName'>;
}

/**
 * Change requests and their audit trail. Every status change is one atomic compare-and-set
 * (never read-then-write), so two clicks, two approvers or two replicas can never both win.
 */
export interface ChangeStore {
  /** Stores a new pending request and writes its "requested" audit entry. */
  create(request: ChangeRequest): Promise<void>;
  get(id: string): Promise<ChangeRequest | undefined>;
  setMessageTs(id: string, messageTs: string): Promise<void>;
  /**
   * Moves a request from one of `from` to `to`, atomically. A pending request past its expiry is
   * moved to expired instead (and reported as such) unless `to` is expired itself.
   * Sets decidedBy/decidedAt when leaving pending, and outcome when given.
   */
  transition(id: string, transition: Transition): Promise<TransitionResult>;
  /** Pending requests of a channel that have not expired, oldest first. */
  listPending(channelId: string, now: number): Promise<ChangeRequest[]>;
  /** Requests left in "applying" (a replica died mid-update); for reconciliation at start. */
  listApplying(): Promise<ChangeRequest[]>;
  /**
   * Newest first. With a channel, only that channel's requests (kept in their own index, so noise
   * elsewhere never pushes them out); with a channel and a service, that service's in that channel.
   */
  readAudit(query: AuditQuery): Promise<AuditEntry[]>;
  /** 'applied' entries written within the window (ms, inclusive), oldest first: drift attribution. */
  readApplied(window: { from: number; to: number }): Promise<AuditEntry[]>;
  /** When the oldest entry still kept was written (entries older than the retention are gone). */
  auditBeginsAt(): Promise<number | undefined>;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export interface AuditQuery {
  channelId?: string;
  serviceId?: string;
  limit: number;
}

/** The audit trail as readers see it (history, drift attribution). */
export type AuditLog = Pick<ChangeStore, 'readAudit' | 'readApplied' | 'auditBeginsAt'>;
