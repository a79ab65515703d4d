/**
 * The hooks bot.ts hands to the adapters and services: each turns an event into a metric (when
 * metrics are on) and, for change requests, a structured log line. Kept here so the approval
 * flow, the Cloud client and the listeners only ever call one small observer.
 */
import type { FollowObserver } from './approval/follower.js';
import type { AuditDeliveryObserver } from './audit/delivery.js';
import type { CloudObserver } from './cloud/client.js';
import type { Command } from './core/command/parse.js';
import { logFields, type BotLogger } from './log.js';
import { slackErrorLabel, slackMethodLabel, statusLabel, type BotMetrics } from './metrics.js';
import { isRateLimitCode } from './slack/messenger.js';
import type { ChangeObserver, SummaryOutcome, SummaryPublisher, SummaryTarget } from './ports/index.js';

export function cloudObserver(metrics: BotMetrics): CloudObserver {
  return {
    request(method, status, seconds) {
      metrics.cloudRequests.inc({ method, status: statusLabel(status) });
      metrics.cloudRequestSeconds.observe({ method }, seconds);
      if (status === 429) metrics.cloudRateLimited.inc();
    },
  };
}

/** Reads made to follow changes, and how each follow ended (settled, elsewhere, still-moving). */
export function followObserver(metrics: BotMetrics): FollowObserver {
  return {
    read: () => metrics.followReads.inc(),
    outcome: (outcome) => metrics.followOutcomes.inc({ outcome }),
  };
}

/** Every outcome is counted and logged with its ids as fields (JSON logs make them searchable). */
export function changeObserver(logger: BotLogger, metrics: BotMetrics | undefined): ChangeObserver {
  return (event) => {
    metrics?.changeRequests.inc({ outcome: event.outcome });
    const { outcome, changeRequestId, userId, serviceId, channelId, apiRequestId } = event;
    logger.info(
      `change request ${changeRequestId}: ${outcome}`,
      logFields({ changeRequestId, outcome, userId, serviceId, channelId, ...(apiRequestId ? { apiRequestId } : {}) }),
    );
  };
}

/** The command label: its kind, or for changes the verb (rename, ip add...): a fixed set either way. */
export function commandLabel(command: Command): string {
  return command.kind === 'change' ? command.verb : command.kind;
}

export function countSlackApiError(metrics: BotMetrics) {
  return (method: string, code: string) => {
    metrics.slackApiErrors.inc({ method: slackMethodLabel(method), error: slackErrorLabel(code) });
    if (isRateLimitCode(code)) metrics.slackRateLimited.inc({ method: slackMethodLabel(method) });
  };
}

/** Calls made again after Slack's Retry-After (slack/pacing.ts). */
export function countSlackRetry(metrics: BotMetrics) {
  return (method: string) => metrics.slackRetries.inc({ method: slackMethodLabel(method) });
}

/** Commands the acknowledging thread answered itself: counted as commands too, and on their own. */
export function countReadyAnswers(metrics: BotMetrics) {
  return (counts: Record<string, number>) => {
    for (const [command, count] of Object.entries(counts)) {
      metrics.commands.inc({ command }, count);
      metrics.commandsAnsweredInAck.inc({ command }, count);
    }
  };
}

/** Summaries counted by result, whoever asked (a command or a schedule). */
export function countedSummaries(inner: SummaryPublisher, metrics: BotMetrics | undefined): SummaryPublisher {
  if (!metrics) return inner;
  return {
    async post(target: SummaryTarget): Promise<SummaryOutcome> {
      try {
        const outcome = await inner.post(target);
        metrics.summaries.inc({ result: outcome.ok ? 'posted' : 'failed' });
        return outcome;
      } catch (error) {
        metrics.summaries.inc({ result: 'failed' });
        throw error;
      }
    },
  };
}

/** Audit export per sink: waiting, delivered, refused attempts, dropped. */
export function auditObserver(metrics: BotMetrics): AuditDeliveryObserver {
  return {
    queued: (sink, count) => metrics.auditQueued.set({ sink }, count),
    delivered: (sink) => metrics.auditDelivered.inc({ sink }),
    failed: (sink) => metrics.auditFailed.inc({ sink }),
    dropped: (sink, count) => metrics.auditDropped.inc({ sink }, count),
  };
}
