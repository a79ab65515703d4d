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
  diffKeys,
  explainKeyDrift,
  diffSnapshots,
  keysSection,
  filterServices,
  parseSnapshot,
  summaryFailureMessage,
  summaryMessages,
  takeSnapshot,
  type KeysRead,
  type KeysSection,
  type SummaryMessage,
} from '../core/summary/index.js';
import { CloudApiError } from '../core/service/api-error.js';
import { weekSpend, weekSpendRange, type WeekSpend } from '../core/cost/report.js';
import {
  costReadFailure,
  SPEND_NOT_READY_REASON,
  spendSummaryMessage,
  spendUnavailableText,
} from '../core/render/cost.js';
import { divider, LIMITS, section, type Block } from '../core/render/mrkdwn.js';
import type { ServiceRecord } from '../core/service/schema.js';
import {
  MessengerError,
  type AuditLog,
  type CostReader,
  type SpendCharts,
  type Log,
  type Messenger,
  type ReadOptions,
  type ScheduleStore,
  type ServiceDirectory,
  type SummaryOutcome,
  type SummaryPublisher,
  type SummaryTarget,
} from '../ports/index.js';

import { DriftAuthors, type Attributed, type KeyDriftInput } from './drift-authors.js';

export type { SummaryOutcome, SummaryTarget } from '../ports/services.js';

type SpendSection = { blocks: Block[]; spend?: WeekSpend; label?: string } | undefined;

/** The spend section goes at the end of the last thread message when it fits, in one of its own otherwise. */
function withSpend(details: SummaryMessage[], spend: SpendSection): SummaryMessage[] {
  if (!spend) return details;
  const last = details.at(-1);
  if (last && last.blocks.length + spend.blocks.length + 1 <= LIMITS.messageBlocks) {
    return [...details.slice(0, -1), { ...last, blocks: [...last.blocks, divider(), ...spend.blocks] }];
  }
  return [...details, { text: 'Spend', blocks: spend.blocks }];
}

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
      /** With both, summaries gain a spend section (and the chart when a schedule asks for it). */
      costs?: CostReader;
      spendCharts?: SpendCharts;
      /** How long a summary waits for its spend section (default 5 s); tests shorten it. */
      spendWaitMs?: number;
      /** CONSOLE_URL: where a service's name links to; undefined: no links. */
      consoleUrl?: string;
      /** Spend of the services the summary lists only (a channel that sees part of its organization). */
      spendOfListedOnly?: boolean;
      /**
       * false: no keys line and no key drift, and the keys are not read (a channel whose `allow`
       * list lacks `keys` does not see them in summaries either). Default true.
       */
      showKeys?: boolean;
      /** How long a summary waits for the keys (default 5 s): a busy API budget costs the keys line, not the summary. */
      keysWaitMs?: number;
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
    const { cloud, audit: auditLog, snapshots } = this.deps;
    const list = await cloud.listServices([], readingFor(target));
    const services = filterServices(list.services, target.filters);
    const now = this.deps.now?.() ?? Date.now();
    const [keys, stored] = await Promise.all([this.readKeys(target), snapshots.readSnapshot(target.snapshotKey)]);
    const previous = parseSnapshot(stored);
    const keysRead = keys !== undefined && 'keys' in keys;
    // Keys that could not be read keep the previous baseline, so no key change goes unreported.
    const currentKeys = keysRead ? keysSection(keys.keys, now) : previous?.keys;
    const current = takeSnapshot(services, now, currentKeys);
    const keyInput = keyDriftInput(previous?.keys, keysRead ? currentKeys : undefined, now);
    let attributed: Attributed | undefined;
    if (previous) {
      const window = { from: previous.takenAt, to: now };
      const audit = await auditLog.readApplied(window);
      const drift = attributeDrift(diffSnapshots(previous, current), audit, window);
      // The keys' baseline may be older than the services' (keys unread meanwhile): its own audit window.
      const sameWindow = keyInput?.window.from === window.from;
      const keysAudit = keyInput && (sameWindow ? audit : await auditLog.readApplied(keyInput.window));
      const keyDrift = keyInput && {
        ...keyInput,
        items: explainKeyDrift(keyInput.items, keysAudit ?? [], keyInput.window),
      };
      attributed = await this.authors.attribute(drift, audit, window, readingFor(target), keyDrift);
    }
    const activityLogUnread = attributed?.unread;
    const { headline, details } = summaryMessages({
      services,
      filters: target.filters,
      drift: attributed?.drift,
      ...(keys ? { keys } : {}),
      generatedAt: now,
      ...(attributed && keyInput ? { keyDrift: attributed.keyDrift } : {}),
      ...(activityLogUnread ? { activityLogUnread } : {}),
      ...(target.title ? { title: target.title } : {}),
      ...(this.deps.consoleUrl ? { consoleUrl: this.deps.consoleUrl } : {}),
    });
    const spend = await this.spendSection(target, services, now);
    const thread = withSpend(details, spend);
    const { messenger } = this.deps;
    let ts: string;
    try {
      ts = await messenger.post(target.channelId, { ...headline, bulk: true });
      for (const message of thread) await messenger.post(target.channelId, { ...message, threadTs: ts, bulk: true });
    } catch (error) {
      // The fallback note (in the details) did not reach the channel: the next summary says it.
      if (activityLogUnread) this.authors.fallbackPosted(false);
      throw error;
    }
    if (activityLogUnread) this.authors.fallbackPosted(true);
    // Only a summary that was posted becomes the next baseline, so no drift is ever skipped.
    const channel = target.scheduled ? undefined : { channelId: target.channelId, keep: AD_HOC_SNAPSHOTS_PER_CHANNEL };
    await snapshots.writeSnapshot(target.snapshotKey, JSON.stringify(current), channel);
    if (target.chart && spend?.spend && this.deps.spendCharts) {
      await this.deps.spendCharts.share(spend.spend.report, spend.label ?? '', target.channelId, ts);
    }
  }

  /**
   * The organization's API keys, read once per summary (undefined where they are not shown); a
   * failure costs the keys line only (it says why), never the summary.
   */
  private async readKeys(target: SummaryTarget): Promise<KeysRead | undefined> {
    if (this.deps.showKeys === false) return undefined;
    try {
      const read = this.deps.cloud.listApiKeys(readingFor(target));
      const { keys, ownKeyId } = await withinMs(read, this.deps.keysWaitMs ?? KEYS_WAIT_MS, 'keys');
      return { keys, ownKeyId };
    } catch (error) {
      this.deps.logger.warn(`summary keys for ${target.channelId}: ${messageOf(error)}`);
      return { unread: { status: error instanceof CloudApiError ? error.details.status : undefined } };
    }
  }

  /**
   * The spend section: its own read (cached days, see cost/ledger.ts), so a failure costs the
   * section only, said in its place in a sentence. Undefined without a cost reader.
   */
  private async spendSection(target: SummaryTarget, services: ServiceRecord[], now: number): Promise<SpendSection> {
    const { costs } = this.deps;
    if (!costs) return undefined;
    const ids = new Set(services.map((service) => service.id));
    const filtered = target.filters.length > 0 || this.deps.spendOfListedOnly === true;
    const label =
      target.filters.length > 0
        ? `the services tagged ${target.filters.map((f) => f.slice(4)).join(' ')}`
        : filtered
          ? 'this channel’s services'
          : 'the organization';
    try {
      // The summary waits for its spend a little at most: a busy API budget delays the section, not the summary.
      const rows = await withinMs(
        costs.rows(weekSpendRange(now), readingFor(target)),
        this.deps.spendWaitMs ?? SPEND_WAIT_MS,
        'spend',
      );
      const spend = weekSpend(rows, now, (entity) => !filtered || (entity.isService && ids.has(entity.id)));
      const provisional = rows.some((row) => !row.locked);
      return {
        blocks: spendSummaryMessage(spend, { label, provisional, consoleUrl: this.deps.consoleUrl }).blocks,
        spend,
        label,
      };
    } catch (error) {
      if (error instanceof NotReady) return { blocks: [section(spendUnavailableText(SPEND_NOT_READY_REASON))] };
      this.deps.logger.warn(`summary spend for ${target.channelId}: ${messageOf(error)}`);
      return { blocks: [section(spendUnavailableText(costReadFailure(error) ?? summaryFailureReason(error)))] };
    }
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

/** Key drift between the keys' baseline and now; none without both. */
function keyDriftInput(
  baseline: KeysSection | undefined,
  current: KeysSection | undefined,
  now: number,
): KeyDriftInput | undefined {
  if (baseline === undefined || current === undefined) return undefined;
  return { items: diffKeys(baseline, current), window: { from: baseline.takenAt, to: now } };
}

/** How long a summary waits for its spend section before posting without it. */
const SPEND_WAIT_MS = 5_000;
/** How long a summary waits for the organization's keys before saying they were not read. */
const KEYS_WAIT_MS = 5_000;

/** A section's read did not answer in time (the summary posts without it). */
class NotReady extends Error {
  override readonly name = 'NotReady';
}

/** The answer of `work` if it comes within `ms`; else NotReady (the read goes on: it fills a cache, or is joined). */
function withinMs<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new NotReady(`${what} not ready in time`)), ms);
  });
  work.catch(() => undefined);
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/** A summary someone asked for is read in the people's lane of the API budget; a schedule's in the background. */
function readingFor(target: SummaryTarget): ReadOptions {
  return target.reader === undefined
    ? { person: 'summaries', priority: 'background' }
    : { person: target.reader, priority: 'command' };
}
