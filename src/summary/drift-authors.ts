/**
 * Who made each change of a summary's drift, from the organization's activity log: read only when
 * there is drift (one more API request, shared by summaries firing together), matched by the pure
 * core (core/summary/attribution.ts). When the log cannot be read, the bot's own audit stays the
 * guess, as before, and that is said once: in the log and in the next summary, until the log can
 * be read again. A key refused the log (401/403) is not asked again for REFUSED_RECHECK_MS.
 */
import { messageOf } from '../core/render/errors.js';
import { CloudApiError } from '../core/service/api-error.js';
import type { AuditEntry } from '../core/change/audit.js';
import {
  attributeFromActivities,
  attributeKeyDrift,
  type ActivityLogUnread,
  type DriftItem,
  type KeyDriftItem,
  type TimeWindow,
} from '../core/summary/index.js';
import type { ActivityList, Log, ReadOptions, ServiceDirectory } from '../ports/index.js';

/** How long a key the API refused the activity log (401/403) is not asked for it again. */
export const REFUSED_RECHECK_MS = 60 * 60 * 1000;

/**
 * The activity log is read this much beyond both ends of the window between two summaries, and
 * an activity there names an author when none inside the window does: a snapshot may come from a
 * list read up to CLICKHOUSE_CACHE_SECONDS before its time, and the API's clock is not the bot's.
 * It also lets summaries firing together share one read.
 */
export const ACTIVITY_MARGIN_MS = 60_000;

/** Key drift to attribute, and the window it covers (from the keys' baseline to now). */
export interface KeyDriftInput {
  items: KeyDriftItem[];
  window: TimeWindow;
}

export interface Attributed {
  drift: DriftItem[];
  keyDrift: KeyDriftItem[];
  /** Set by the one summary that is to say the log could not be read. */
  unread?: ActivityLogUnread;
}

interface ActivityRead {
  window: TimeWindow;
  read: Promise<ActivityList>;
}

export class DriftAuthors {
  /** The fallback was logged and the log has not been readable since. */
  private fallbackLogged = false;
  /**
   * Whether a summary said the fallback since the log was last readable: 'saying' while the one
   * that carries it is being posted; back to 'unsaid' when that post failed, so the next one says it.
   */
  private fallbackNote: 'unsaid' | 'saying' | 'said' = 'unsaid';
  /** Until when a refused key is not asked for the activity log again. */
  private refusedUntil = -Infinity;
  /** The status the key was refused with (401 or 403), for the note of a summary that does not ask. */
  private refusedStatus: number | undefined;
  /** Activity reads under way, which summaries firing together join instead of sending their own. */
  private readonly reads = new Set<ActivityRead>();

  constructor(private readonly deps: { cloud: ServiceDirectory; logger: Pick<Log, 'info' | 'warn'> }) {}

  /**
   * The drift with its authors from the activity log; when the log cannot be read, the drift as
   * the audit guessed it, and (the first time only) why, for the summary to say. Key drift, over
   * its own window (the keys' baseline may be older than the services'), shares the one read.
   */
  async attribute(
    drift: DriftItem[],
    audit: readonly AuditEntry[],
    window: TimeWindow,
    reading: ReadOptions,
    keys: KeyDriftInput = { items: [], window },
  ): Promise<Attributed> {
    if (drift.length === 0 && keys.items.length === 0) return { drift, keyDrift: keys.items };
    if (window.to < this.refusedUntil) return this.fallback(drift, keys.items, this.refusedStatus);
    const from = Math.min(window.from, keys.window.from) - ACTIVITY_MARGIN_MS;
    const wide = { from, to: Math.max(window.to, keys.window.to) + ACTIVITY_MARGIN_MS };
    try {
      const log = await this.read(wide, window.to, reading);
      if (this.fallbackLogged)
        this.deps.logger.info('The activity log can be read again: drift names who made each change.');
      this.fallbackLogged = false;
      this.fallbackNote = 'unsaid';
      const options = { marginMs: ACTIVITY_MARGIN_MS };
      return {
        drift: attributeFromActivities(drift, log.activities, log.ownKeyId, window, audit, options),
        keyDrift: attributeKeyDrift(keys.items, log.activities, log.ownKeyId, keys.window, ACTIVITY_MARGIN_MS),
      };
    } catch (error) {
      const status = error instanceof CloudApiError ? error.details.status : undefined;
      if (status === 401 || status === 403) {
        this.refusedUntil = window.to + REFUSED_RECHECK_MS;
        this.refusedStatus = status;
      }
      if (!this.fallbackLogged)
        this.deps.logger.warn(
          `Drift attribution falls back to the bot's own audit: the organization's activities could not be read (${messageOf(error)}). Said once until they can be read again.`,
        );
      this.fallbackLogged = true;
      return this.fallback(drift, keys.items, status);
    }
  }

  /** The drift as the audit guessed it, with why for the summary to say unless one said it already. */
  private fallback(drift: DriftItem[], keyDrift: KeyDriftItem[], status: number | undefined): Attributed {
    if (this.fallbackNote !== 'unsaid') return { drift, keyDrift };
    this.fallbackNote = 'saying';
    return { drift, keyDrift, unread: { status } };
  }

  /** The summary that carried the fallback (`unread`) was posted, or was not: then the next one says it. */
  fallbackPosted(posted: boolean): void {
    if (this.fallbackNote === 'saying') this.fallbackNote = posted ? 'said' : 'unsaid';
  }

  /**
   * GET …/activities for the window, or the read under way that covers it: one that starts no
   * later and whose end is past this summary's time (`now`), so a burst costs one request.
   */
  private read(window: TimeWindow, now: number, reading: ReadOptions): Promise<ActivityList> {
    for (const under of this.reads) {
      if (under.window.from <= window.from && under.window.to >= now) return under.read;
    }
    const read = this.deps.cloud.listActivities(window, reading);
    const entry = { window, read };
    this.reads.add(entry);
    const done = () => void this.reads.delete(entry);
    read.then(done, done);
    return read;
  }
}
