/**
 * Bumps waiting requests in their thread and tells the channel when a rule escalates. What is due
 * is decided from the stored request and the time (core/policy/nudges.ts); each reminder round and
 * each escalation is claimed once across replicas before it is posted, and a post that fails gives
 * its claim back, so the next look tries again.
 */
import { approvalChannelOf } from '../core/policy/progress.js';
import { dueNudges, nextNudgeAt, remindsInThread, withEscalation, type Nudge } from '../core/policy/nudges.js';
import { escalationMessage, reminderMessage, type NudgeMessage } from '../core/render/nudge.js';
import { requirementsOf } from '../core/render/policy.js';
import type { ChangeRequest } from '../core/change/types.js';
import type { ApproverDms, ApproverDmsOptions } from './approver-dms.js';
import { threadOf } from './flow-messages.js';

/** One look reads at most this many waiting requests (the first: oldest first; then soonest due first). */
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
  /** Whether this process has looked at every waiting request once (requests posted before an upgrade, rules reloaded). */
  private sweptAll = false;

  constructor(private readonly options: NudgerOptions) {}

  /**
   * One look: posts what is due and not yet said, then records when each request looked at is due
   * next. Only requests due by their score are read, so a look costs the same however many wait;
   * the first look of a process reads every waiting request once and schedules them all.
   */
  async tick(): Promise<void> {
    const { store } = this.options;
    const now = this.options.now();
    const requests = this.sweptAll ? await this.dueRequests(now) : await store.listOpen(now, PAGE);
    const next: Array<{ id: string; at: number | undefined }> = [];
    for (const request of requests) {
      if (!request.messageTs) continue;
      const requirements = requirementsOf(request, this.options.defaults);
      let failed = false;
      for (const nudge of dueNudges(request, requirements, now))
        failed = !(await this.say(request, nudge, now)) || failed;
      // A nudge that could not be posted gave its claim back: it stays due for the next look.
      next.push({ id: request.id, at: failed ? now : nextNudgeAt(request, requirements, now) });
    }
    await store.scheduleNudges(next);
    this.sweptAll = true;
  }

  /** The requests whose next nudge is due; ids whose request is gone are dropped from the schedule. */
  private async dueRequests(now: number): Promise<ChangeRequest[]> {
    const { store } = this.options;
    const ids = await store.dueForNudges(now, PAGE);
    const requests = await Promise.all(ids.map((id) => store.get(id)));
    const gone = ids.filter((_, i) => requests[i] === undefined).map((id) => ({ id, at: undefined }));
    await store.scheduleNudges(gone);
    return requests.filter((request): request is ChangeRequest => request !== undefined);
  }

  /** False when the nudge could not be posted (its claim is given back). */
  private async say(request: ChangeRequest, nudge: Nudge, now: number): Promise<boolean> {
    const { store, messenger, logger } = this.options;
    if (!(await store.claimOnce(nudge.key, request.expiresAt - now + CLAIM_MARGIN_MS))) return true;
    const requirements = withEscalation(requirementsOf(request, this.options.defaults), request.createdAt, now);
    const message =
      nudge.kind === 'remind'
        ? reminderMessage(request, requirements, nudge.round, now)
        : escalationMessage(request, nudge.requirement);
    await this.tellDirectly(request, nudge, message);
    // A reminder of rules that all notify by DM only stays out of the thread.
    if (nudge.kind === 'remind' && !remindsInThread(request, requirements)) return true;
    try {
      // Where the approvers are: the approval channel's thread when the request is decided there;
      // else the request's thread (its original's, for an Extend or Undo posted as a reply).
      const decidedIn = approvalChannelOf(request);
      const where =
        decidedIn && request.approvalTs
          ? { channelId: decidedIn, threadTs: request.approvalTs }
          : { channelId: request.channelId, ...threadOf(request) };
      await messenger.post(where.channelId, { ...message, ...(where.threadTs ? { threadTs: where.threadTs } : {}) });
      this.options.observe?.(nudge.kind);
      return true;
    } catch (error) {
      logger.warn(`change ${request.id}: could not post its ${nudge.kind}: ${String(error)}`);
      await store.releaseClaim(nudge.key).catch(() => undefined);
      return false;
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
