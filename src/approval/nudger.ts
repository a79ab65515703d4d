/**
 * Bumps waiting requests in their thread and tells the channel when a rule escalates. What is due
 * is decided from the stored request and the time (core/policy/nudges.ts); each reminder round and
 * each escalation is claimed once across replicas before it is posted, and a post that fails gives
 * its claim back, so the next look tries again.
 */
import { approvalChannelOf } from '../core/policy/progress.js';
import { dueNudges, remindsInThread, withEscalation, type Nudge } from '../core/policy/nudges.js';
import { escalationMessage, reminderMessage, type NudgeMessage } from '../core/render/nudge.js';
import { requirementsOf } from '../core/render/policy.js';
import type { ChangeRequest } from '../core/change/types.js';
import type { ApproverDms, ApproverDmsOptions } from './approver-dms.js';

/** One look reads at most this many waiting requests (oldest first). */
const PAGE = 500;
/** A claim outlives the request by this much, so a late replica never says it again. */
const CLAIM_MARGIN_MS = 3_600_000;

export interface NudgerOptions extends ApproverDmsOptions {
  /** Told of each reminder or escalation posted (metrics). */
  observe?: (kind: Nudge['kind']) => void;
  /** Messages approvers directly (a reminder, an escalation). */
  dms?: Pick<ApproverDms, 'reminded' | 'escalated'>;
}

export class Nudger {
  constructor(private readonly options: NudgerOptions) {}

  /** One look at every waiting request: posts what is due and not yet said. */
  async tick(): Promise<void> {
    const now = this.options.now();
    for (const request of await this.options.store.listOpen(now, PAGE)) {
      if (!request.messageTs) continue;
      const requirements = requirementsOf(request, this.options.defaults);
      for (const nudge of dueNudges(request, requirements, now)) await this.say(request, nudge, now);
    }
  }

  private async say(request: ChangeRequest, nudge: Nudge, now: number): Promise<void> {
    const { store, messenger, logger } = this.options;
    if (!(await store.claimOnce(nudge.key, request.expiresAt - now + CLAIM_MARGIN_MS))) return;
    const requirements = withEscalation(requirementsOf(request, this.options.defaults), request.createdAt, now);
    const message =
      nudge.kind === 'remind'
        ? reminderMessage(request, requirements, nudge.round, now)
        : escalationMessage(request, nudge.requirement);
    await this.tellDirectly(request, nudge, message);
    // A reminder of rules that all notify by DM only stays out of the thread.
    if (nudge.kind === 'remind' && !remindsInThread(request, requirements)) return;
    try {
      // Where the approvers are: the approval channel's thread when the request is decided there.
      const decidedIn = approvalChannelOf(request);
      const where =
        decidedIn && request.approvalTs
          ? { channelId: decidedIn, threadTs: request.approvalTs }
          : { channelId: request.channelId, threadTs: request.messageTs };
      await messenger.post(where.channelId, { ...message, ...(where.threadTs ? { threadTs: where.threadTs } : {}) });
      this.options.observe?.(nudge.kind);
    } catch (error) {
      logger.warn(`change ${request.id}: could not post its ${nudge.kind}: ${String(error)}`);
      await store.releaseClaim(nudge.key).catch(() => undefined);
    }
  }

  /** Approvers messaged of the request get its first reminder; the people of an escalation get it. */
  private async tellDirectly(request: ChangeRequest, nudge: Nudge, message: NudgeMessage): Promise<void> {
    const dms = this.options.dms;
    if (!dms) return;
    try {
      if (nudge.kind === 'escalate') await dms.escalated(request, nudge.requirement);
      else if (nudge.round === 1) await dms.reminded(request, message);
    } catch (error) {
      this.options.logger.warn(`change ${request.id}: could not message its approvers: ${String(error)}`);
    }
  }
}
