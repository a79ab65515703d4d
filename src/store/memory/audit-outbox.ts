/**
 * The in-process twin of the Redis audit outbox: the memory store appends each audit entry here
 * in the same synchronous step that records it; each sink has a cursor (the last entry it
 * acknowledged) and one replica delivers, the lease being this process's own.
 */
import type { AuditRecord } from '../../core/audit/export.js';
import type { AuditOutbox } from '../../ports/audit-export.js';
import { MEMORY_AUDIT_MAX_ENTRIES } from '../rules.js';

interface Kept {
  sequence: number;
  record: AuditRecord;
  writtenAt: number;
}

export class MemoryAuditOutbox implements AuditOutbox {
  private readonly entries: Kept[] = [];
  private sequence = 0;
  private lastMs = 0;
  /** Sink -> the sequence number of the last entry it acknowledged (or skipped). */
  private readonly cursors = new Map<string, number>();
  private readonly leases = new Map<string, { owner: string; until: number }>();

  constructor(private readonly retentionMs: number) {}

  /**
   * Ids look like Redis stream ids ("<ms>-<n>") so that they stay unique across restarts of a
   * process that starts counting again: receivers de-duplicate on them.
   */
  append(fields: Record<string, string>): void {
    const now = Date.now();
    this.sequence += 1;
    this.lastMs = Math.max(this.lastMs, now);
    this.entries.push({
      sequence: this.sequence,
      record: { id: `${this.lastMs}-${this.sequence}`, fields: { ...fields } },
      writtenAt: now,
    });
    this.forgetOld();
  }

  openSink(sink: string): Promise<void> {
    if (!this.cursors.has(sink)) this.cursors.set(sink, this.sequence);
    return Promise.resolve();
  }

  next(sink: string, limit: number): Promise<{ records: AuditRecord[]; lost: number }> {
    this.forgetOld();
    const cursor = this.cursor(sink);
    const first = this.entries[0]?.sequence ?? this.sequence + 1;
    const lost = Math.max(0, first - cursor - 1);
    if (lost > 0) this.cursors.set(sink, first - 1);
    const records = this.after(this.cursor(sink))
      .slice(0, limit)
      .map((kept) => ({ id: kept.record.id, fields: { ...kept.record.fields } }));
    return Promise.resolve({ records, lost });
  }

  acknowledge(sink: string, id: string): Promise<void> {
    const kept = this.entries.find((entry) => entry.record.id === id);
    if (kept && kept.sequence > this.cursor(sink)) this.cursors.set(sink, kept.sequence);
    return Promise.resolve();
  }

  queued(sink: string): Promise<number> {
    return Promise.resolve(this.after(this.cursor(sink)).length);
  }

  skipOldest(sink: string, keep: number): Promise<number> {
    const waiting = this.after(this.cursor(sink));
    const skip = Math.max(0, waiting.length - keep);
    const last = waiting[skip - 1];
    if (last) this.cursors.set(sink, last.sequence);
    return Promise.resolve(skip);
  }

  holdSink(sink: string, owner: string, ttlMs: number): Promise<boolean> {
    const now = Date.now();
    const lease = this.leases.get(sink);
    if (lease && lease.owner !== owner && lease.until > now) return Promise.resolve(false);
    this.leases.set(sink, { owner, until: now + ttlMs });
    return Promise.resolve(true);
  }

  releaseSink(sink: string, owner: string): Promise<void> {
    if (this.leases.get(sink)?.owner === owner) this.leases.delete(sink);
    return Promise.resolve();
  }

  record(fields: Record<string, string>): Promise<void> {
    this.append(fields);
    return Promise.resolve();
  }

  private cursor(sink: string): number {
    return this.cursors.get(sink) ?? this.sequence;
  }

  private after(sequence: number): Kept[] {
    const start = this.entries.findIndex((entry) => entry.sequence > sequence);
    return start === -1 ? [] : this.entries.slice(start);
  }

  /** Kept like the store's own audit trail: by age, and capped. */
  private forgetOld(): void {
    const cutoff = Date.now() - this.retentionMs;
    const old = this.entries.findIndex(({ writtenAt }) => writtenAt >= cutoff);
    this.entries.splice(0, old === -1 ? this.entries.length : old);
    if (this.entries.length > MEMORY_AUDIT_MAX_ENTRIES)
      this.entries.splice(0, this.entries.length - MEMORY_AUDIT_MAX_ENTRIES);
  }
}
