/**
 * Posts a summary of the organization to a channel: a short headline, details in its thread, and
 * drift against the previous summary of the same schedule (or the channel's previous ad-hoc one).
 * Every summary reads the organization once, unfiltered, through the cached client and filters
 * locally, so a burst of schedules costs one API request, not one each.
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
} from '../core/summary/index.js';
import { weekSpend, weekSpendRange } from '../core/cost/report.js';
import { spendSummaryMessage, spendUnavailableText } from '../core/render/cost.js';
import { section } from '../core/render/mrkdwn.js';
import type { ServiceRecord } from '../core/service/schema.js';
import {
  MessengerError,
  type AuditLog,
  type CostReader,
  type SpendCharts,
  type Log,
  type Messenger,
  type ScheduleStore,
  type ServiceDirectory,
  type SummaryOutcome,
  type SummaryPublisher,
  type SummaryTarget,
} from '../ports/index.js';

export type { SummaryOutcome, SummaryTarget } from '../ports/services.js';

export class Summaries implements SummaryPublisher {
  constructor(
    private readonly deps: {
      cloud: ServiceDirectory;
      audit: AuditLog;
      snapshots: Pick<ScheduleStore, 'readSnapshot' | 'writeSnapshot'>;
      messenger: Messenger;
      logger: Pick<Log, 'info' | 'warn' | 'error'>;
      now?: () => number;
      /** With both, summaries gain a spend section (and the chart when a schedule asks for it). */
      costs?: CostReader;
      spendCharts?: SpendCharts;
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
    let drift;
    if (previous) {
      const audit = await auditLog.readApplied({ from: previous.takenAt, to: now });
      drift = attributeDrift(diffSnapshots(previous, current), audit, { from: previous.takenAt, to: now });
    }
    const { headline, details } = summaryMessages({
      services,
      filters: target.filters,
      drift,
      generatedAt: now,
      ...(target.title ? { title: target.title } : {}),
    });
    const ts = await messenger.post(target.channelId, { ...headline, bulk: true });
    for (const message of details) await messenger.post(target.channelId, { ...message, threadTs: ts, bulk: true });
    await this.postSpend(target, services, ts, now);
    // Only a summary that was posted becomes the next baseline, so no drift is ever skipped.
    const channel = target.scheduled ? undefined : { channelId: target.channelId, keep: AD_HOC_SNAPSHOTS_PER_CHANNEL };
    await snapshots.writeSnapshot(target.snapshotKey, JSON.stringify(current), channel);
  }

  /**
   * The spend section, in the summary's thread: its own read (cached days, see cost/ledger.ts),
   * so a failure costs the section only, said there in a sentence.
   */
  private async postSpend(target: SummaryTarget, services: ServiceRecord[], threadTs: string, now: number) {
    const { costs, spendCharts, messenger } = this.deps;
    if (!costs) return;
    const ids = new Set(services.map((service) => service.id));
    const filtered = target.filters.length > 0;
    const label = filtered
      ? `the services tagged ${target.filters.map((f) => f.slice(4)).join(' ')}`
      : 'the organization';
    let spend;
    let provisional = false;
    try {
      const rows = await costs.rows(weekSpendRange(now), { person: target.reader ?? 'summaries' });
      provisional = rows.some((row) => !row.locked);
      spend = weekSpend(rows, now, (entity) => !filtered || (entity.isService && ids.has(entity.id)));
    } catch (error) {
      this.deps.logger.warn(`summary spend for ${target.channelId}: ${messageOf(error)}`);
      const text = spendUnavailableText(summaryFailureReason(error));
      await messenger.post(target.channelId, { text, blocks: [section(text)], threadTs, bulk: true });
      return;
    }
    const message = spendSummaryMessage(spend, { label, provisional });
    await messenger.post(target.channelId, { ...message, threadTs, bulk: true });
    if (target.chart && spendCharts) await spendCharts.share(spend.report, label, target.channelId, threadTs);
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
