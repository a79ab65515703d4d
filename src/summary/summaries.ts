/**
 * Posts a summary of the organization to a channel: a short headline, details in its thread, and
 * drift against the previous summary of the same schedule (or the channel's previous ad-hoc one).
 * Every summary reads the organization once, unfiltered, through the cached client and filters
 * locally, so a burst of schedules costs one API request, not one each.
 *
 * Who made each change comes from the organization's activity log (drift-authors.ts).
 */
import { AD_HOC_SNAPSHOTS_PER_CHANNEL } from '../core/schedule/types.js';
import { messageOf, summaryFailureReason } from '../core/render/errors.js';
import { esc } from '../core/render/mrkdwn.js';
import {
  attributeDrift,
  diffSnapshots,
  filterServices,
  parseSnapshot,
  summaryFailureMessage,
  summaryMessages,
  takeSnapshot,
  type ActivityLogUnread,
  type DriftItem,
} from '../core/summary/index.js';
import {
  MessengerError,
  type AuditLog,
  type Log,
  type Messenger,
  type ScheduleStore,
  type ServiceDirectory,
  type SummaryOutcome,
  type SummaryPublisher,
  type SummaryTarget,
} from '../ports/index.js';

import { DriftAuthors } from './drift-authors.js';

export type { SummaryOutcome, SummaryTarget } from '../ports/services.js';

export class Summaries implements SummaryPublisher {
  private readonly authors: DriftAuthors;

  constructor(
    private readonly deps: {
      cloud: ServiceDirectory;
      audit: AuditLog;
      snapshots: Pick<ScheduleStore, 'readSnapshot' | 'writeSnapshot'>;
      messenger: Messenger;
      logger: Pick<Log, 'info' | 'warn' | 'error'>;
      now?: () => number;
    },
  ) {
    this.authors = new DriftAuthors(deps);
  }

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
      const person = target.reader ?? 'summaries';
      ({ drift, unread: activityLogUnread } = await this.authors.attribute(drift, audit, window, person));
    }
    const { headline, details } = summaryMessages({
      services,
      filters: target.filters,
      drift,
      generatedAt: now,
      ...(activityLogUnread ? { activityLogUnread } : {}),
      ...(target.title ? { title: target.title } : {}),
    });
    try {
      const ts = await messenger.post(target.channelId, { ...headline, bulk: true });
      for (const message of details) await messenger.post(target.channelId, { ...message, threadTs: ts, bulk: true });
    } catch (error) {
      // The fallback note (in the details) did not reach the channel: the next summary says it.
      if (activityLogUnread) this.authors.fallbackPosted(false);
      throw error;
    }
    if (activityLogUnread) this.authors.fallbackPosted(true);
    // Only a summary that was posted becomes the next baseline, so no drift is ever skipped.
    const channel = target.scheduled ? undefined : { channelId: target.channelId, keep: AD_HOC_SNAPSHOTS_PER_CHANNEL };
    await snapshots.writeSnapshot(target.snapshotKey, JSON.stringify(current), channel);
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
