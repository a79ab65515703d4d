/** The audit trail: one entry per step in a change request's life. */
import type { ServiceUpdate } from '../service/schema.js';

export type AuditAction =
  | 'requested'
  | 'approved'
  | 'applied'
  | 'failed'
  | 'rejected'
  | 'cancelled'
  | 'expired'
  | 'stale'
  /** Claimed for applying by someone on the break-glass list, without approval. */
  | 'break-glass'
  /** A break-glass change marked reviewed by an approver of its rules. */
  | 'reviewed';

export interface AuditEntry {
  /** Stream entry id (Redis) or a monotonic equivalent (memory). */
  id: string;
  at: number;
  action: AuditAction;
  changeId: string;
  actorId: string;
  channelId: string;
  serviceId: string;
  serviceName: string;
  /** One line: what the change was, e.g. "name: a -> b; IP +1.2.3.4/32". */
  summary: string;
  apiRequestId?: string;
  message?: string;
  /**
   * The PATCH body of the request, on 'applied' entries: what drift attribution matches, entry
   * by entry, so the bot is credited only for exactly what it did.
   */
  update?: ServiceUpdate;
  /** The lease's fencing token of the replica that claimed, applied or settled the request. */
  fence?: number;
  /** On 'requested' entries: the organization changed, when the bot drives more than one. */
  organization?: string;
  /** On 'requested' entries: the requester's reason and ticket, as given. */
  reason?: string;
  ticket?: string;
}
export type NewAuditEntry = Omit<AuditEntry, 'id'>;
