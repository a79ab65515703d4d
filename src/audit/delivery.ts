/**
 * Sends the audit trail to one sink, in order, at least once. Every replica runs one of these per
 * sink; the sink's lease in the store lets one of them deliver at a time, and the sink's cursor
 * in the store (acknowledged entry by entry) lets the next holder carry on where the last one
 * stopped. A failing sink is retried with exponential backoff; nothing is skipped for it, so a
 * sink down for an hour receives the whole hour when it comes back. Only the outbox bound
 * (AUDIT_OUTBOX_MAX) skips entries, and it says so in the logs and the metrics.
 */
import { outboxPressure, retryDelayMs, toAuditEvent } from '../core/audit/export.js';
import type { AuditOutbox, AuditSink } from '../ports/audit-export.js';
import type { Log } from '../ports/log.js';

export interface AuditDeliveryObserver {
  queued(sink: string, count: number): void;
  delivered(sink: string): void;
  failed(sink: string): void;
  /** Entries that will never reach the sink: over the outbox bound, or gone with the retention. */
  dropped(sink: string, count: number): void;
}

export interface AuditDeliveryOptions {
  outbox: AuditOutbox;
  sink: AuditSink;
  /** The sink's cursor and lease name in the store (its full spec: distinct per sink). */
  sinkKey: string;
  /** This replica, as the lease's owner. */
  owner: string;
  /** The organization of entries that do not name their own. */
  organizationId: string | undefined;
  /** AUDIT_OUTBOX_MAX: the most entries kept waiting for this sink. */
  outboxMax: number;
  log: Log;
  observe?: AuditDeliveryObserver;
  /** How long a replica delivers without renewing its lease. */
  leaseMs?: number;
  /** How often an idle (or not leading) replica looks for new entries. */
  pollMs?: number;
  /** First and longest wait between attempts of a failing sink. */
  retryBaseMs?: number;
  retryMaxMs?: number;
  batchSize?: number;
  random?: () => number;
}

interface RoundResult {
  /** The sink refused an entry: wait, then try it again. */
  failed: boolean;
  /** A full batch went out: more may be waiting. */
  more: boolean;
}

const DEFAULT_LEASE_MS = 15_000;
const DEFAULT_POLL_MS = 1_000;
const DEFAULT_BATCH = 100;
const FAILURE_REMINDER_MS = 10 * 60_000;

export class AuditDelivery {
  private running = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private failuresInARow = 0;
  private leaseRenewedAt: number | undefined;
  private lastFailureWarnAt = 0;
  private pressure: 'ok' | 'near' | 'full' = 'ok';
  private readonly label: string;

  constructor(private readonly options: AuditDeliveryOptions) {
    this.label = options.sink.label;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Stops after the entry being sent (it is acknowledged or sent again by the next holder). */
  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
    await this.options.outbox.releaseSink(this.options.sinkKey, this.options.owner).catch(() => undefined);
    await this.options.sink.close?.();
  }

  /** Looks now instead of at the next poll (an entry was just recorded in this process). */
  nudge(): void {
    this.wake?.();
  }

  private async run(): Promise<void> {
    const { outbox, sinkKey } = this.options;
    await this.untilOpened(() => outbox.openSink(sinkKey));
    while (this.running) {
      const result = await this.leadAndDeliver().catch((error: unknown) => {
        this.options.log.warn(`audit export to ${this.label}: the store did not answer (${messageOf(error)})`);
        return { failed: true, more: false };
      });
      if (!this.running) break;
      if (result.more) continue;
      await this.pause(result.failed ? this.retryDelay() : (this.options.pollMs ?? DEFAULT_POLL_MS));
    }
  }

  private async untilOpened(open: () => Promise<void>): Promise<void> {
    while (this.running) {
      try {
        await open();
        return;
      } catch (error) {
        this.options.log.warn(`audit export to ${this.label}: cannot open its cursor yet (${messageOf(error)})`);
        await this.pause(this.options.pollMs ?? DEFAULT_POLL_MS);
      }
    }
  }

  private async leadAndDeliver(): Promise<RoundResult> {
    if (!(await this.holdLease())) {
      // Another replica delivers; this one's gauge still says what waits, never a stale figure.
      this.options.observe?.queued(this.label, await this.options.outbox.queued(this.options.sinkKey));
      return { failed: false, more: false };
    }
    await this.keepWithinBound();
    return this.deliverBatch();
  }

  private async holdLease(): Promise<boolean> {
    const { outbox, sinkKey, owner } = this.options;
    const held = await outbox.holdSink(sinkKey, owner, this.leaseMs());
    this.leaseRenewedAt = held ? Date.now() : undefined;
    return held;
  }

  /** Renewed once a third of it has passed: a slow sink never lets another replica start meanwhile. */
  private async keepLease(): Promise<boolean> {
    const renewedAt = this.leaseRenewedAt;
    if (renewedAt !== undefined && Date.now() - renewedAt < this.leaseMs() / 3) return true;
    return this.holdLease();
  }

  private leaseMs(): number {
    return this.options.leaseMs ?? DEFAULT_LEASE_MS;
  }

  /** Counts what waits, warns near the bound, and at the bound skips the oldest, loudly. */
  private async keepWithinBound(): Promise<void> {
    const { outbox, sinkKey, outboxMax, log, observe } = this.options;
    let queued = await outbox.queued(sinkKey);
    const pressure = outboxPressure(queued, outboxMax);
    if (pressure === 'full') {
      const skipped = await outbox.skipOldest(sinkKey, outboxMax);
      if (skipped > 0) {
        observe?.dropped(this.label, skipped);
        log.error(
          `AUDIT EVENTS DROPPED: ${skipped} of the oldest events waiting for ${this.label} were skipped, ` +
            `as ${queued} waited and AUDIT_OUTBOX_MAX is ${outboxMax}. Bring the sink back or raise AUDIT_OUTBOX_MAX.`,
        );
        queued -= skipped;
      }
    } else if (pressure === 'near' && this.pressure === 'ok') {
      log.warn(
        `audit outbox for ${this.label} is close to its bound: ${queued} events wait, AUDIT_OUTBOX_MAX is ${outboxMax}; ` +
          'past it the oldest are skipped. Bring the sink back or raise AUDIT_OUTBOX_MAX.',
      );
    } else if (pressure === 'ok' && this.pressure !== 'ok') {
      log.info(`audit outbox for ${this.label} is below its bound again (${queued} events wait)`);
    }
    this.pressure = pressure;
    observe?.queued(this.label, queued);
  }

  private async deliverBatch(): Promise<RoundResult> {
    const { outbox, sinkKey, sink, log, observe, organizationId } = this.options;
    const batchSize = this.options.batchSize ?? DEFAULT_BATCH;
    const { records, lost } = await outbox.next(sinkKey, batchSize);
    if (lost > 0) {
      observe?.dropped(this.label, lost);
      log.error(
        `AUDIT EVENTS LOST: ${lost} events for ${this.label} were removed by AUDIT_RETENTION_DAYS before they could be delivered`,
      );
    }
    for (const [index, record] of records.entries()) {
      if (index > 0 && !(await this.keepLease())) return { failed: false, more: false };
      try {
        await sink.deliver(toAuditEvent(record, organizationId));
      } catch (error) {
        observe?.failed(this.label);
        this.failuresInARow += 1;
        const report = `audit export to ${this.label} failed (${messageOf(error)}); event ${record.id} and those after it wait, next attempt in ${Math.round(this.retryDelay(0.5) / 1000)} s`;
        // Said when it starts failing and every 10 minutes while it lasts; the attempts between at debug.
        const now = Date.now();
        if (this.failuresInARow === 1 || now - this.lastFailureWarnAt >= FAILURE_REMINDER_MS) {
          log.warn(`${report} (${this.failuresInARow} attempt${this.failuresInARow === 1 ? '' : 's'} so far)`);
          this.lastFailureWarnAt = now;
        } else log.debug(report);
        return { failed: true, more: false };
      }
      await outbox.acknowledge(sinkKey, record.id);
      observe?.delivered(this.label);
      if (this.failuresInARow > 0) {
        log.info(`audit export to ${this.label} works again after ${this.failuresInARow} failed attempts`);
        this.failuresInARow = 0;
      }
    }
    return { failed: false, more: records.length === batchSize };
  }

  private retryDelay(jitter = (this.options.random ?? Math.random)()): number {
    return retryDelayMs(this.failuresInARow, jitter, this.options.retryBaseMs, this.options.retryMaxMs);
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      timer.unref?.();
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
