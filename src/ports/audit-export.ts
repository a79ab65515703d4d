import type { AuditEvent, AuditRecord } from '../core/audit/export.js';

/**
 * The audit trail as an outbox: entries enter it in the same atomic step that records them (they
 * are the audit trail), and each sink reads it from its own cursor, kept in the store, so a sink
 * that is down for a while receives everything, in order, when it comes back.
 */
export interface AuditOutbox {
  /** Starts the sink's cursor at the end of the trail if it has none: it receives events from now on. */
  openSink(sink: string): Promise<void>;
  /**
   * The sink's next entries, oldest first: first those handed out before and never acknowledged
   * (a replica died while sending them), then new ones. `lost` counts entries the trail dropped
   * (retention) before they were delivered.
   */
  next(sink: string, limit: number): Promise<{ records: AuditRecord[]; lost: number }>;
  /** The entry was delivered: it is never handed out to this sink again. */
  acknowledge(sink: string, id: string): Promise<void>;
  /** Entries not yet delivered to the sink (handed out or not). */
  queued(sink: string): Promise<number>;
  /** Skips the sink's oldest undelivered entries so that at most `keep` remain; how many were skipped. */
  skipOldest(sink: string, keep: number): Promise<number>;
  /**
   * True while `owner` holds the sink's delivery lease (taken when free or expired, renewed when
   * held): one replica delivers to a sink at a time.
   */
  holdSink(sink: string, owner: string, ttlMs: number): Promise<boolean>;
  releaseSink(sink: string, owner: string): Promise<void>;
  /** Appends an entry that belongs to no change request (a policy reload) to the audit trail. */
  record(fields: Record<string, string>): Promise<void>;
}

/** Where exported events go: a file, a webhook. */
export interface AuditSink {
  /** For logs and metrics: kind and host, never a path, query or secret. */
  readonly label: string;
  /** Throws when the event was not accepted; it is then sent again later. */
  deliver(event: AuditEvent): Promise<void>;
  close?(): Promise<void>;
}
