/**
 * The audit stream as the export outbox. Entries are already in it, written by the same Lua
 * script that records each transition; each sink is a consumer group of that stream, so its
 * cursor lives in Redis and Redis counts what it has not read yet (XINFO GROUPS lag). A single
 * consumer name per group means whichever replica holds the sink's lease sees the entries an
 * earlier holder was handed and never acknowledged (its pending list), and sends them first.
 */
import { createHash } from 'node:crypto';
import type { AuditRecord } from '../../core/audit/export.js';
import type { AuditOutbox } from '../../ports/audit-export.js';
import type { RedisConnection } from './connection.js';
import { hashFromFlatReply } from './codec.js';
import { reportUnavailableAsStoreErrors } from './errors.js';
import type { ChangeKeys } from './keys.js';
import type { CommandOf } from './lua-script.js';
import { HOLD_AUDIT_SINK, OPEN_AUDIT_SINK, RELEASE_AUDIT_SINK } from './scripts.js';

const CONSUMER = 'deliverer';
/** Entries skipped per read when a backlog over the bound is cut. */
const SKIP_PAGE = 1_000;

interface GroupInfo {
  pending: number;
  lastDeliveredId: string;
  entriesRead: number | undefined;
  lag: number | undefined;
}

export class RedisAuditOutbox implements AuditOutbox {
  private readonly openScript: CommandOf<typeof OPEN_AUDIT_SINK>;
  private readonly holdScript: CommandOf<typeof HOLD_AUDIT_SINK>;
  private readonly releaseScript: CommandOf<typeof RELEASE_AUDIT_SINK>;

  constructor(
    private readonly redis: RedisConnection,
    private readonly keys: ChangeKeys,
    private readonly retentionMs: number,
    /** The stream's expiry as the change scripts renew it (stream-expiry.ts): never shortened here. */
    private readonly streamTtlMs: number,
  ) {
    this.openScript = OPEN_AUDIT_SINK.on(redis);
    this.holdScript = HOLD_AUDIT_SINK.on(redis);
    this.releaseScript = RELEASE_AUDIT_SINK.on(redis);
    // biome-ignore lint/correctness/noConstructorReturn: every method's Redis failures become the store's own
    return reportUnavailableAsStoreErrors(this);
  }

  async openSink(sink: string): Promise<void> {
    await this.openScript({ keys: { stream: this.keys.audit }, args: { group: groupOf(sink), start: '$' } });
  }

  async next(sink: string, limit: number): Promise<{ records: AuditRecord[]; lost: number }> {
    try {
      return await this.read(sink, limit);
    } catch (error) {
      // The stream expired (nothing written for the whole retention) and took the group with it.
      if (!/NOGROUP/.test(String(error))) throw error;
      // From the new stream's start: what was recorded since the expiry is for this sink too.
      await this.openScript({ keys: { stream: this.keys.audit }, args: { group: groupOf(sink), start: '0' } });
      return { records: [], lost: 0 };
    }
  }

  private async read(sink: string, limit: number): Promise<{ records: AuditRecord[]; lost: number }> {
    const group = groupOf(sink);
    let lost = 0;
    // Handed out before and never acknowledged: entries trimmed meanwhile come back without fields.
    const handedOut = await this.readGroup(group, limit, '0');
    const gone = handedOut.filter((entry) => entry.fields === undefined).map((entry) => entry.id);
    if (gone.length > 0) {
      await this.redis.call('XACK', this.keys.audit, group, ...gone);
      lost += gone.length;
    }
    const kept = records(handedOut);
    // The pending list is exhausted when it gave fewer than asked: new entries follow in order.
    if (handedOut.length >= limit) return { records: kept, lost };
    lost += await this.forgetTrimmedUnread(group);
    const fresh = records(await this.readGroup(group, limit - handedOut.length, '>'));
    return { records: [...kept, ...fresh], lost };
  }

  /**
   * Entries the retention trimmed before this sink read them: counted (the caller says so loudly),
   * and the group's read counter set past them so its lag is exact again.
   */
  private async forgetTrimmedUnread(group: string): Promise<number> {
    const stream = await this.streamInfo();
    const info = await this.groupInfo(group);
    if (!stream || !info || info.entriesRead === undefined) return 0;
    const trimmed = stream.entriesAdded - stream.length;
    const unread = trimmed - info.entriesRead;
    if (unread <= 0) return 0;
    await this.redis.call('XGROUP', 'SETID', this.keys.audit, group, info.lastDeliveredId, 'ENTRIESREAD', trimmed);
    return unread;
  }

  async acknowledge(sink: string, id: string): Promise<void> {
    await this.redis.call('XACK', this.keys.audit, groupOf(sink), id);
  }

  async queued(sink: string): Promise<number> {
    const info = await this.groupInfo(groupOf(sink));
    if (!info) return 0;
    return info.pending + (info.lag ?? (await this.unreadByCount(info)));
  }

  /** Redis leaves lag unknown after deletions inside the stream: count, up to a bound. */
  private async unreadByCount(info: GroupInfo): Promise<number> {
    const reply = await this.redis.call('XRANGE', this.keys.audit, `(${info.lastDeliveredId}`, '+', 'COUNT', 100_000);
    return Array.isArray(reply) ? reply.length : 0;
  }

  async skipOldest(sink: string, keep: number): Promise<number> {
    const group = groupOf(sink);
    const info = await this.groupInfo(group);
    if (!info) return 0;
    const unread = info.lag ?? (await this.unreadByCount(info));
    const toSkip = Math.max(0, info.pending + unread - keep);
    // The oldest first: those handed out and never acknowledged, then unread ones.
    const fromHandedOut = await this.skip(group, Math.min(toSkip, info.pending), '0');
    return fromHandedOut + (await this.skip(group, toSkip - fromHandedOut, '>'));
  }

  private async skip(group: string, count: number, from: '0' | '>'): Promise<number> {
    let skipped = 0;
    while (skipped < count) {
      const page = await this.readGroup(group, Math.min(SKIP_PAGE, count - skipped), from);
      if (page.length === 0) break;
      await this.redis.call('XACK', this.keys.audit, group, ...page.map((entry) => entry.id));
      skipped += page.length;
    }
    return skipped;
  }

  async holdSink(sink: string, owner: string, ttlMs: number): Promise<boolean> {
    const held = await this.holdScript({
      keys: { lease: this.keys.auditSinkLease(groupOf(sink)) },
      args: { holder: owner, ttlMs: Math.max(1, Math.ceil(ttlMs)) },
    });
    return held === 1;
  }

  async releaseSink(sink: string, owner: string): Promise<void> {
    await this.releaseScript({ keys: { lease: this.keys.auditSinkLease(groupOf(sink)) }, args: { holder: owner } });
  }

  async record(fields: Record<string, string>): Promise<void> {
    const minId = String(Math.max(0, Date.now() - this.retentionMs));
    await this.redis.call('XADD', this.keys.audit, 'MINID', '~', minId, '*', ...Object.entries(fields).flat());
    // The retention and a day, as a daily renewal sets it: the retention alone would cut short the
    // entries the change scripts write after this one without renewing the expiry (up to a day).
    await this.redis.call('PEXPIRE', this.keys.audit, this.streamTtlMs);
  }

  private async readGroup(group: string, count: number, from: '0' | '>'): Promise<StreamEntry[]> {
    const reply = await this.redis.call(
      'XREADGROUP',
      'GROUP',
      group,
      CONSUMER,
      'COUNT',
      count,
      'STREAMS',
      this.keys.audit,
      from,
    );
    if (!Array.isArray(reply)) return [];
    const [stream] = reply as unknown[];
    const entries: unknown = Array.isArray(stream) ? stream[1] : undefined;
    return Array.isArray(entries) ? entries.flatMap(streamEntry) : [];
  }

  private async groupInfo(group: string): Promise<GroupInfo | undefined> {
    const reply = await this.redis.call('XINFO', 'GROUPS', this.keys.audit).catch((error: unknown) => {
      if (/no such key/i.test(String(error))) return [];
      throw error;
    });
    if (!Array.isArray(reply)) return undefined;
    for (const item of reply as unknown[]) {
      const fields = flatRecord(item);
      if (fields.name !== group) continue;
      return {
        pending: Number(fields.pending ?? 0),
        lastDeliveredId: typeof fields['last-delivered-id'] === 'string' ? fields['last-delivered-id'] : '0-0',
        entriesRead: optionalNumber(fields['entries-read']),
        lag: optionalNumber(fields.lag),
      };
    }
    return undefined;
  }

  private async streamInfo(): Promise<{ length: number; entriesAdded: number } | undefined> {
    const reply = await this.redis.call('XINFO', 'STREAM', this.keys.audit).catch(() => undefined);
    if (reply === undefined) return undefined;
    const fields = flatRecord(reply);
    const entriesAdded = optionalNumber(fields['entries-added']);
    return entriesAdded === undefined ? undefined : { length: Number(fields.length ?? 0), entriesAdded };
  }
}

interface StreamEntry {
  id: string;
  /** Undefined when the entry was trimmed after it was handed out. */
  fields: Record<string, string> | undefined;
}

function streamEntry(raw: unknown): StreamEntry[] {
  if (!Array.isArray(raw) || typeof raw[0] !== 'string') return [];
  const fields: unknown = raw[1];
  return [{ id: raw[0], fields: Array.isArray(fields) ? hashFromFlatReply(fields) : undefined }];
}

function records(entries: StreamEntry[]): AuditRecord[] {
  return entries.flatMap(({ id, fields }) => (fields ? [{ id, fields }] : []));
}

function flatRecord(reply: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!Array.isArray(reply)) return out;
  for (let i = 0; i + 1 < reply.length; i += 2) out[String(reply[i])] = reply[i + 1];
  return out;
}

function optionalNumber(value: unknown): number | undefined {
  if (value === null || value === undefined) return undefined;
  const n = Number(value);
  return Number.isFinite(n) ? n : undefined;
}

/**
 * A sink's consumer group: readable, and distinct per sink. The sink key holds the whole URL
 * (perhaps with a token in its path), so only its digest is kept.
 */
export function groupOf(sink: string): string {
  const kind = sink.split(':')[0] ?? 'sink';
  return `export:${kind}:${createHash('sha256').update(sink).digest('hex').slice(0, 16)}`;
}
