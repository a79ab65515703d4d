/**
 * Posts a summary of the organization to a channel: a short headline, details in its thread, and
 * drift against the previous summary of the same schedule (or the channel's previous ad-hoc one).
 * Every summary reads the organization once, unfiltered, through the cached client and filters
 * locally, so a burst of schedules costs one API request, not one each.
 */
import type { Logger } from '@slack/bolt';
import { SlackCallError, type Messenger } from '../approval/messenger.js';
import type { CloudClient } from '../cloud/client.js';
import { CloudApiError } from '../cloud/errors.js';
import { cloudErrorSentence } from '../core/render/errors.js';
import { esc } from '../core/render/mrkdwn.js';
import { attributeDrift, diffSnapshots, filterServices, parseSnapshot, summaryFailureMessage, summaryMessages, takeSnapshot } from '../core/summary/index.js';
import type { ScheduleStore } from '../store/schedules.js';
import type { AuditEntry, ChangeStore } from '../store/types.js';

export interface SummaryTarget {
  channelId: string;
  filters: string[];
  /** Where this summary's drift baseline lives. */
  snapshotKey: string;
  title?: string;
  /** Posted by a schedule rather than asked for; failure messages say which. */
  scheduled?: boolean;
  /** Who the read is for (the person who asked, or the schedule): the API budget is shared fairly. */
  reader: string;
}

export type SummaryOutcome = { ok: true } | { ok: false; text: string };

/** Applied changes older than the baseline cannot explain its drift; this many is plenty. */
const AUDIT_LOOKBACK = 2_000;

export class Summaries {
  constructor(
    private readonly deps: {
      cloud: CloudClient;
      changes: ChangeStore;
      snapshots: ScheduleStore;
      messenger: Messenger;
      logger: Pick<Logger, 'info' | 'warn' | 'error'>;
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
    const { cloud, changes, snapshots, messenger } = this.deps;
    const list = await cloud.listServices([], { person: target.reader });
    const services = filterServices(list.services, target.filters);
    const now = this.deps.now?.() ?? Date.now();
    const current = takeSnapshot(services, now);
    const previous = parseSnapshot(await snapshots.readSnapshot(target.snapshotKey));
    let drift;
    if (previous) {
      const audit = await withUpdates(changes, await changes.readAudit({ limit: AUDIT_LOOKBACK }), previous.takenAt);
      drift = attributeDrift(diffSnapshots(previous, current), audit, { from: previous.takenAt, to: now });
    }
    const { headline, details } = summaryMessages({ services, filters: target.filters, drift, generatedAt: now, ...(target.title ? { title: target.title } : {}) });
    const ts = await messenger.post(target.channelId, headline);
    for (const message of details) await messenger.post(target.channelId, { ...message, threadTs: ts });
    // Only a summary that was posted becomes the next baseline, so no drift is ever skipped.
    await snapshots.writeSnapshot(target.snapshotKey, JSON.stringify(current));
  }

  /** A failure is logged, and told to the channel when the channel can be reached at all. */
  private async report(target: SummaryTarget, error: unknown): Promise<SummaryOutcome> {
    const reason = error instanceof CloudApiError ? `${cloudErrorSentence(error)}${plainReference(error)}` : error instanceof SlackCallError ? `Slack refused the post (${error.code}).` : 'the bot hit an internal error.';
    this.deps.logger.error(`summary for ${target.channelId} (${target.snapshotKey}) failed: ${error instanceof Error ? error.message : String(error)}`);
    const reachable = !(error instanceof SlackCallError);
    if (reachable) {
      const what = target.scheduled ? 'The scheduled ClickHouse Cloud summary' : 'The ClickHouse Cloud summary';
      await this.deps.messenger.post(target.channelId, summaryFailureMessage(reason, what)).catch((postError: unknown) => {
        this.deps.logger.warn(`could not tell ${target.channelId} that its summary failed: ${String(postError)}`);
      });
    }
    const invite = error instanceof SlackCallError && (error.code === 'not_in_channel' || error.code === 'channel_not_found') ? ' Invite the bot to this channel and try again.' : '';
    return { ok: false, text: `:x: The summary could not be posted: ${esc(reason)}${invite}` };
  }
}

/**
 * Applied entries carry their PATCH body; one written without it (by an older version) gets it
 * from its change request while that is still kept, so attribution stays exact either way.
 */
async function withUpdates(changes: ChangeStore, entries: AuditEntry[], since: number): Promise<AuditEntry[]> {
  return Promise.all(
    entries.map(async (entry) => {
      if (entry.action !== 'applied' || entry.update || entry.at < since) return entry;
      const request = await changes.get(entry.changeId);
      return request ? { ...entry, update: request.plan.update } : entry;
    }),
  );
}

function plainReference(error: CloudApiError): string {
  const parts = [error.status === undefined ? '' : `status ${error.status}`, error.requestId ? `request id ${error.requestId}` : ''].filter(Boolean);
  return parts.length > 0 ? ` (${parts.join(', ')})` : '';
}
