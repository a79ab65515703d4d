/**
 * Posts a summary of the organization to a channel: a short headline, details in its thread, and
 * drift against the previous summary of the same schedule (or the channel's previous ad-hoc one).
 * Every summary reads the organization once, unfiltered, through the cached client and filters
 * locally, so a burst of schedules costs one API request, not one each.
 *
 * Who made each change comes from the organization's activity log, read only when there is drift
 * (one more request). When the log cannot be read, the bot's own audit is the guess, as before,
 * and that is said once: in the log and in the next summary, until the log can be read again. A
 * key refused the log (401/403) is not asked again for REFUSED_RECHECK_MS.
 */
import { AD_HOC_SNAPSHOTS_PER_CHANNEL } from '../core/schedule/types.js';
import { messageOf, summaryFailureReason } from '../core/render/errors.js';
import { CloudApiError } from '../core/service/api-error.js';
import { esc } from '../core/render/mrkdwn.js';
import {
  attributeDrift,
  attributeFromActivities,
  diffSnapshots,
  filterServices,
  parseSnapshot,
  summaryFailureMessage,
  summaryMessages,
  takeSnapshot,
  type ActivityLogUnread,
  type DriftItem,
  type TimeWindow,
} from '../core/summary/index.js';
import type { AuditEntry } from '../core/change/audit.js';
import {
  MessengerError,
  type ActivityList,
  type AuditLog,
  type Log,
  type Messenger,
  type ScheduleStore,
  type ServiceDirectory,
  type SummaryOutcome,
  type SummaryPublisher,
  type SummaryTarget,
} from '../ports/index.js';

export type { SummaryOutcome, SummaryTarget } from '../ports/services.js';

/** How long a key the API refused the activity log (401/403) is not asked for it again. */
export const REFUSED_RECHECK_MS = 60 * 60 * 1000;

/**
 * The activity log is read this much beyond both ends of the window between two summaries, and
 * an activity there names an author when none inside the window does: a snapshot may come from a
 * list read up to CLICKHOUSE_CACHE_SECONDS before its time, and the API's clock is not the bot's.
 * It also lets summaries firing together share one read.
 */
export const ACTIVITY_MARGIN_MS = 60_000;

interface ActivityRead {
  window: TimeWindow;
  read: Promise<ActivityList>;
}

export class Summaries implements SummaryPublisher {
  /** The fallback was told (log and a summary) and the log has not been readable since. */
  private fallbackTold = false;
  /** Until when a refused key is not asked for the activity log again. */
  private refusedUntil = -Infinity;
  /** Activity reads under way, which summaries firing together join instead of sending their own. */
  private readonly reads = new Set<ActivityRead>();

  constructor(
    private readonly deps: {
      cloud: ServiceDirectory;
      audit: AuditLog;
      snapshots: Pick<ScheduleStore, 'readSnapshot' | 'writeSnapshot'>;
      messenger: Messenger;
      logger: Pick<Log, 'info' | 'warn' | 'error'>;
      now?: () => number;
    },
  ) {}

  async post(target: SummaryTarget): Promise<SummaryOutcome> {
    try {
      await this.postOrThrow(target);
      return { ok: true };
    } catch (error) {
      return this.report(target, error);
    }
  }

  private async postOrThrow(target: SummaryTarget): Promise<void> {
    const { cloud, audit: auditLog, snapshots, messenger } = this.deps;
    const list = await cloud.listServices([], { person: target.reader ?? 'summaries' });
    const services = filterServices(list.services, target.filters);
    const now = this.deps.now?.() ?? Date.now();
    const current = takeSnapshot(services, now);
    const previous = parseSnapshot(await snapshots.readSnapshot(target.snapshotKey));
    let drift: DriftItem[] | undefined;
    let activityLogUnread: ActivityLogUnread | undefined;
    if (previous) {
      const window = { from: previous.takenAt, to: now };
      const audit = await auditLog.readApplied(window);
      drift = attributeDrift(diffSnapshots(previous, current), audit, window);
      if (drift.length > 0) {
        ({ drift, unread: activityLogUnread } = await this.attributeExactly(drift, audit, window, target));
      }
    }
    const { headline, details } = summaryMessages({
      services,
      filters: target.filters,
      drift,
      generatedAt: now,
      ...(activityLogUnread ? { activityLogUnread } : {}),
      ...(target.title ? { title: target.title } : {}),
    });
    const ts = await messenger.post(target.channelId, { ...headline, bulk: true });
    for (const message of details) await messenger.post(target.channelId, { ...message, threadTs: ts, bulk: true });
    // Only a summary that was posted becomes the next baseline, so no drift is ever skipped.
    const channel = target.scheduled ? undefined : { channelId: target.channelId, keep: AD_HOC_SNAPSHOTS_PER_CHANNEL };
    await snapshots.writeSnapshot(target.snapshotKey, JSON.stringify(current), channel);
  }

  /**
   * The drift with its authors from the activity log; when the log cannot be read, the drift as
   * the audit guessed it, and (the first time only) why, for the summary to say.
   */
  private async attributeExactly(
    drift: DriftItem[],
    audit: readonly AuditEntry[],
    window: TimeWindow,
    target: SummaryTarget,
  ): Promise<{ drift: DriftItem[]; unread?: ActivityLogUnread }> {
    if (window.to < this.refusedUntil) return { drift };
    const wide = { from: window.from - ACTIVITY_MARGIN_MS, to: window.to + ACTIVITY_MARGIN_MS };
    try {
      const log = await this.readActivities(wide, window.to, target.reader ?? 'summaries');
      if (this.fallbackTold)
        this.deps.logger.info('The activity log can be read again: drift names who made each change.');
      this.fallbackTold = false;
      const options = { marginMs: ACTIVITY_MARGIN_MS };
      return { drift: attributeFromActivities(drift, log.activities, log.ownKeyId, window, audit, options) };
    } catch (error) {
      const status = error instanceof CloudApiError ? error.details.status : undefined;
      if (status === 401 || status === 403) this.refusedUntil = window.to + REFUSED_RECHECK_MS;
      if (this.fallbackTold) return { drift };
      this.fallbackTold = true;
      this.deps.logger.warn(
        `Drift attribution falls back to the bot's own audit: the organization's activities could not be read (${messageOf(error)}). Said once until they can be read again.`,
      );
      return { drift, unread: { status } };
    }
  }

  /**
   * GET …/activities for the window, or the read under way that covers it: one that starts no
   * later and whose end is past this summary's time (`now`), so a burst costs one request.
   */
  private readActivities(window: TimeWindow, now: number, person: string): Promise<ActivityList> {
    for (const under of this.reads) {
      if (under.window.from <= window.from && under.window.to >= now) return under.read;
    }
    const read = this.deps.cloud.listActivities(window, { person });
    const entry = { window, read };
    this.reads.add(entry);
    const done = () => void this.reads.delete(entry);
    read.then(done, done);
    return read;
  }

  /** A failure is logged, and told to the channel when the channel can be reached at all. */
  private async report(target: SummaryTarget, error: unknown): Promise<SummaryOutcome> {
    const reason = summaryFailureReason(error, error instanceof MessengerError ? error.code : undefined);
    this.deps.logger.error(`summary for ${target.channelId} (${target.snapshotKey}) failed: ${messageOf(error)}`);
    const reachable = !(error instanceof MessengerError);
    if (reachable) {
      const what = target.scheduled ? 'The scheduled ClickHouse Cloud summary' : 'The ClickHouse Cloud summary';
      await this.deps.messenger
        .post(target.channelId, summaryFailureMessage(reason, what))
        .catch((postError: unknown) => {
          this.deps.logger.warn(`could not tell ${target.channelId} that its summary failed: ${messageOf(postError)}`);
        });
    }
    const invite =
      error instanceof MessengerError && error.reason === 'not-in-channel'
        ? ' Invite the bot to this channel and try again.'
        : '';
    return { ok: false, text: `:x: The summary could not be posted: ${esc(reason)}${invite}` };
  }
}
