/**
 * The reads and writes behind the decision function's effects about a grant (an applied temporary
 * change) and Undo: no decisions here, only the store, the Cloud API and Slack. The runner
 * (approval-flow.ts) calls these and feeds what they answer back to the step as events.
 */
import { readPlanTarget } from './read-target.js';
import type { RevertAttempt } from '../core/approval/types.js';
import { isRetryable, REVERT_ATTEMPTS_MAX, revertIdOf, sendsNothing } from '../core/change/grant.js';
import type { LaterChange } from '../core/change/temporary.js';
import type { ChangeRequest } from '../core/change/types.js';
import { requesterMessage, requestMessage } from '../core/render/change.js';
import { messageOf } from '../core/render/errors.js';
import { nothingToRevertText } from '../core/render/grant.js';
import {
  nothingToRevertMessage,
  reminderClosedMessage,
  revertedOriginalMessage,
  scheduledRevertMessage,
} from '../core/render/temporary.js';
import type { ServiceRecord } from '../core/service/schema.js';
import type { ChangeStore, Log, Messenger, ServiceDirectory } from '../ports/index.js';

/** Of a flood of clicks on one Extend or Undo button, one files a request within this window. */
const CLICK_WINDOW_MS = 10_000;

export interface GrantIoOptions {
  store: ChangeStore;
  /** The directory of a change's own organization (ORGANIZATIONS_FILE). */
  cloudOf: (organization: string | undefined) => ServiceDirectory;
  messenger: Messenger;
  logger: Pick<Log, 'warn'>;
  now: () => number;
  /** Told when a due revert finds its request gone (a metric counts it). */
  onMissingRecord?: (id: string) => void;
}

export class GrantIo {
  constructor(private readonly options: GrantIoOptions) {}

  /** When the grant's revert is scheduled, if it is. */
  async revertDueAt(originalId: string): Promise<number | undefined> {
    return this.options.store.revertDueAt(originalId);
  }

  /**
   * The latest attempt at reverting a grant: CR-X-R, then CR-X-R2, CR-X-R3… after each one that
   * failed with something left to take back.
   */
  async latestRevert(originalId: string): Promise<RevertAttempt> {
    let attempt = 1;
    let revert = await this.options.store.get(revertIdOf(originalId, attempt));
    while (revert && isRetryable(revert) && attempt < REVERT_ATTEMPTS_MAX) {
      const next = await this.options.store.get(revertIdOf(originalId, attempt + 1));
      if (!next) break;
      attempt += 1;
      revert = next;
    }
    return { attempt, revert };
  }

  /** The service as it is now, and the changes other requests applied to it since the grant. */
  async revertInputs(original: ChangeRequest): Promise<{ service: ServiceRecord | undefined; later: LaterChange[] }> {
    const cloud = this.options.cloudOf(original.organization);
    const service = await readPlanTarget(cloud, original.plan, { fresh: true });
    const applied = await this.options.store.readApplied({
      from: original.decidedAt ?? original.createdAt,
      to: this.options.now(),
    });
    const later = applied.filter(
      (entry) =>
        entry.serviceId === original.plan.serviceId &&
        entry.changeId !== original.id &&
        !entry.changeId.startsWith(`${original.id}-`),
    );
    return { service, later };
  }

  /** Creates the revert attempt only if absent (its creator posts it in the thread), and reads it back. */
  async fileRevert(candidate: ChangeRequest): Promise<ChangeRequest | undefined> {
    const { store } = this.options;
    if (await store.createIfAbsent(candidate)) await this.postRevert(candidate);
    return store.get(candidate.id);
  }

  private async postRevert(revert: ChangeRequest): Promise<void> {
    const { messenger, store } = this.options;
    const empty = sendsNothing(revert.plan);
    const original = { ...revert, id: revert.revertOf ?? revert.id };
    const message = empty ? nothingToRevertMessage(original, revert.plan.warnings) : requestMessage(revert);
    try {
      const ts = await messenger.post(revert.channelId, {
        ...message,
        ...(revert.threadTs ? { threadTs: revert.threadTs } : {}),
      });
      if (!empty) await store.setMessageTs(revert.id, ts);
    } catch (error) {
      // The revert still happens; only its message is missing.
      this.options.logger.warn(`change ${revert.id}: could not post the revert: ${messageOf(error)}`);
    }
  }

  /** A revert with nothing left to send: recorded as such (failed, audited as stale). */
  async settleUnsentRevert(revert: ChangeRequest, actorId: string): Promise<boolean> {
    // Plain text: what shows it (history, the thread, the audit export) escapes it itself.
    const message = nothingToRevertText(revert.plan.warnings);
    const settled = await this.options.store.transition(revert.id, {
      from: ['pending'],
      to: 'failed',
      actorId,
      now: this.options.now(),
      outcome: { message },
      audit: { action: 'stale', summary: `Revert of ${revert.revertOf ?? ''}`, message },
    });
    return settled.ok;
  }

  forgetRevert(originalId: string): Promise<void> {
    return this.options.store.forgetRevert(originalId);
  }

  async postponeRevert(originalId: string, ms: number): Promise<void> {
    const now = this.options.now();
    await this.options.store.postponeRevert(originalId, now + ms, now);
  }

  countMissingRecord(originalId: string): void {
    this.options.onMissingRecord?.(originalId);
  }

  /** The reminder loses Extend and Revert now, which could only answer "no longer active" from now on. */
  async closeReminder(original: ChangeRequest, revertId: string): Promise<void> {
    if (!original.reminderTs) return;
    await this.options.messenger
      .update(original.channelId, original.reminderTs, reminderClosedMessage(original, revertId))
      .catch((error: unknown) =>
        this.options.logger.warn(
          `temporary change ${original.id}: could not take the buttons off its reminder: ${messageOf(error)}`,
        ),
      );
  }

  /**
   * The grant's own message, once its revert was applied: marked reverted (by what, asked by whom
   * and when) and without Undo. A revert that found nothing to take back leaves it as it is.
   */
  async markReverted(original: ChangeRequest, revertId: string): Promise<void> {
    if (!original.messageTs) return;
    const revert = await this.options.store.get(revertId);
    if (revert?.status !== 'applied') return;
    await this.options.messenger
      .update(original.channelId, original.messageTs, revertedOriginalMessage(requesterMessage(original), revert))
      .catch((error: unknown) =>
        this.options.logger.warn(
          `temporary change ${original.id}: could not mark its message reverted: ${messageOf(error)}`,
        ),
      );
  }

  /** The revert of this grant that was applied, if one was (an Undo then has nothing left to take back). */
  async appliedRevertOf(originalId: string): Promise<string | undefined> {
    const { revert } = await this.latestRevert(originalId);
    return revert?.status === 'applied' ? revert.id : undefined;
  }

  /** In the applied request's thread: when the bot reverts the grant. */
  async announceRevert(original: ChangeRequest, applied: ChangeRequest, dueAt: number): Promise<void> {
    const threadTs = applied.threadTs ?? applied.messageTs;
    if (!threadTs) return;
    await this.options.messenger.post(applied.channelId, {
      ...scheduledRevertMessage(original, dueAt, Boolean(applied.extendOf)),
      threadTs,
    });
  }

  /** An open extension or undo of this grant, else whether this click claimed filing one. */
  async claimClick(original: ChangeRequest, action: 'extend' | 'undo'): Promise<{ open?: string; claimed: boolean }> {
    const { store, now } = this.options;
    const isSame = (pending: ChangeRequest) =>
      action === 'extend' ? pending.extendOf === original.id : pending.undoOf === original.id;
    const open = (await store.listPending(original.channelId, now())).find(isSame);
    if (open) return { open: open.id, claimed: false };
    return { claimed: await store.claimOnce(`${action}:${original.id}`, CLICK_WINDOW_MS) };
  }

  releaseClick(originalId: string, action: 'extend' | 'undo'): Promise<void> {
    return this.options.store.releaseClaim(`${action}:${originalId}`);
  }

  readForFollowOn(original: ChangeRequest, userId: string): Promise<ServiceRecord | undefined> {
    const cloud = this.options.cloudOf(original.organization);
    return readPlanTarget(cloud, original.plan, {
      fresh: true,
      priority: 'command',
      person: userId,
    });
  }
}
