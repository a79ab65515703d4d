/**
 * Temporary changes that undo themselves, and Undo: the entry points. Every decision is the
 * decision function's (core/approval/grant.ts: revert due, Revert now, Extend, Undo, a revert
 * settled); this file looks for what is due and hands it to the approval flow's runner.
 *
 * An applied temporary request is scheduled for its revert by the store in the same step that
 * records it applied. Every replica looks for due reverts (at start, then every tick); the revert
 * of CR-X is the change request CR-X-R, planned against the service as it is now and created only
 * if absent, so two replicas never file two. It needs no approval and is applied through the
 * approval flow's exactly-once path (lease, service lock, fresh re-read, confirm before send,
 * takeover after a crash). It lives in the original's thread, like the reminder before it.
 */
import { startTicks, type Ticks } from '../scheduler/ticks.js';
import { BOT_ACTOR, revertRetryMs } from '../core/change/grant.js';
import type { ChangeRequest } from '../core/change/types.js';
import type { Justification } from '../core/policy/justification.js';
import {
  organizationMissingClickText,
  organizationMissingMessage,
  reminderMessage,
  temporaryListBlocks,
  type TemporaryEntry,
} from '../core/render/temporary.js';
import { messageOf } from '../core/render/errors.js';
import {
  UnknownOrganizationError,
  type ChangeStore,
  type ClickOrigin,
  type DecisionReply,
  type Log,
  type Messenger,
  type TemporaryChangeService,
} from '../ports/index.js';
import type { ApprovalFlow } from './approval-flow.js';
import { threadOf } from './flow-messages.js';

export { BOT_ACTOR };

/** Due reverts and reminders handled per tick; the rest wait for the next one. */
const BATCH = 20;
const DAY_MS = 86_400_000;

export interface TemporaryChangesOptions {
  flow: Pick<ApprovalFlow, 'revertDue' | 'grantClicked' | 'grantSettled'>;
  store: ChangeStore;
  messenger: Messenger;
  logger: Pick<Log, 'info' | 'warn' | 'error'>;
  /** The approval flow's clock: reverts are due on it (tests move it forward). */
  now: () => number;
}

export class TemporaryChanges implements TemporaryChangeService {
  /** Failures of each revert in a row, in this process (for the back-off). */
  private readonly failedReverts = new Map<string, number>();

  constructor(private readonly options: TemporaryChangesOptions) {}

  /** One look: reminders that are due, then reverts that are due (also those missed while down). */
  async tick(): Promise<void> {
    const { store, now } = this.options;
    for (const id of await store.dueReminders(now(), BATCH)) await this.logFailure(id, this.remind(id));
    for (const id of await store.dueReverts(now(), BATCH)) await this.revertOrRetryLater(id);
  }

  /**
   * A revert that fails (the API down, a bug) is tried again later, backing off, rather than on
   * every tick: it keeps its turn from starving the other due reverts, and stays scheduled.
   */
  private async revertOrRetryLater(id: string): Promise<void> {
    const failures = this.failedReverts.get(id) ?? 0;
    try {
      const reply = await this.options.flow.revertDue(id, BOT_ACTOR, failures);
      // Not yet (the service is on its way): the step postponed it; count it for the back-off.
      if (reply?.kind === 'revert-not-yet') this.failedReverts.set(id, failures + 1);
      else this.failedReverts.delete(id);
    } catch (error) {
      this.failedReverts.set(id, failures + 1);
      const retryInMs = revertRetryMs(failures + 1);
      if (error instanceof UnknownOrganizationError) await this.tellOrganizationMissing(id, error.organization);
      this.options.logger.warn(
        `temporary change ${id}: its revert failed (${failures + 1} time(s)): ${messageOf(error)}; trying again in ${Math.round(retryInMs / 1000)} s`,
      );
      const now = this.options.now();
      await this.options.store.postponeRevert(id, now + retryInMs, now).catch(() => undefined);
    }
  }

  /** The approval flow's follow-up after a request settled. */
  afterSettled(request: ChangeRequest): Promise<void> {
    return this.options.flow.grantSettled(request);
  }

  /** Revert now: the requester or anyone who may approve it; no approval needed. */
  revertNow(originalId: string, userId: string, origin?: ClickOrigin): Promise<DecisionReply> {
    return this.clicked('revert-now', originalId, userId, origin);
  }

  /** Extend: a new change request, approved like any other, moving the revert by the same duration. */
  extend(originalId: string, userId: string, origin?: ClickOrigin, given?: Justification): Promise<DecisionReply> {
    return this.clicked('extend', originalId, userId, origin, given);
  }

  /** Undo: the inverse of an applied change, planned against the service as it is now. */
  undo(requestId: string, userId: string, origin?: ClickOrigin, given?: Justification): Promise<DecisionReply> {
    return this.clicked('undo', requestId, userId, origin, given);
  }

  /**
   * A click on a change whose organization left the file (the bot restarted since) cannot reach its
   * service: the person is told why and what would help, not "an internal error, try again"; an
   * Extend or Undo's claim is let go, so that a click once the organization is back is not refused.
   */
  private async clicked(
    action: 'revert-now' | 'extend' | 'undo',
    id: string,
    userId: string,
    origin: ClickOrigin | undefined,
    given?: Justification,
  ): Promise<DecisionReply> {
    try {
      return await this.options.flow.grantClicked(action, id, userId, origin, given);
    } catch (error) {
      if (!(error instanceof UnknownOrganizationError)) throw error;
      this.options.logger.warn(`${action} of ${id} by ${userId}: ${error.message}`);
      if (action !== 'revert-now') await this.options.store.releaseClaim(`${action}:${id}`).catch(() => undefined);
      return { text: organizationMissingClickText(error.organization) };
    }
  }

  private async remind(id: string): Promise<void> {
    const { store, messenger } = this.options;
    if (!(await store.claimReminder(id))) return;
    const request = await store.get(id);
    const dueAt = await store.revertDueAt(id);
    if (!request?.messageTs || dueAt === undefined) return;
    const ts = await messenger.post(request.channelId, {
      ...reminderMessage(request, dueAt),
      ...threadOf(request),
    });
    await store.setReminderTs(id, ts);
  }

  /**
   * Says in the log which temporary changes still to be reverted belong to an organization the
   * file no longer has (at start, and after each reload): they cannot be reverted until it is back.
   */
  async warnUnrevertable(hasOrganization: (organization: string | undefined) => boolean): Promise<void> {
    const { store, logger } = this.options;
    for (const { id, dueAt } of await store.scheduledReverts()) {
      const grant = await store.get(id);
      if (!grant || hasOrganization(grant.organization)) continue;
      logger.error(
        `temporary change ${id} (reverted at ${new Date(dueAt).toISOString()}) belongs to the organization ${grant.organization ?? ''}, which ORGANIZATIONS_FILE no longer has: put it back (and reload); without it no restarted bot can revert it, and the change stays in place`,
      );
    }
  }

  /** `temporary`: this channel's active temporary changes, soonest revert first. */
  async list(channelId: string) {
    const entries: TemporaryEntry[] = [];
    for (const revert of await this.options.store.scheduledReverts()) {
      const request = await this.options.store.get(revert.id);
      if (request?.channelId === channelId && request.status === 'applied') entries.push({ ...revert, request });
    }
    return { text: `${entries.length} temporary changes`, blocks: temporaryListBlocks(entries, this.options.now()) };
  }

  /**
   * A temporary change whose organization was taken out of the file (and the bot restarted since)
   * cannot be taken back: its access stays open past its time. The operators hear it in the log on
   * every try; its channel, in its thread, once a day (across replicas), until it is put back.
   */
  private async tellOrganizationMissing(id: string, organization: string): Promise<void> {
    const { store, messenger, logger } = this.options;
    logger.error(
      `temporary change ${id}: cannot be reverted: its organization ${organization} is not in ORGANIZATIONS_FILE any more; put it back (and reload) so the bot can revert it`,
    );
    try {
      if (!(await store.claimOnce(`revert-organization-missing:${id}`, DAY_MS))) return;
      const grant = await store.get(id);
      if (!grant?.messageTs) return;
      await messenger.post(grant.channelId, {
        ...organizationMissingMessage(grant, organization),
        ...threadOf(grant),
      });
    } catch (error) {
      logger.warn(`temporary change ${id}: could not say in its thread why it is not reverted: ${messageOf(error)}`);
    }
  }

  private async logFailure(id: string, work: Promise<unknown>): Promise<void> {
    await work.catch((error: unknown) => this.options.logger.warn(`temporary change ${id}: ${messageOf(error)}`));
  }
}

export type TemporaryTicks = Ticks;

/** Looks for due reminders and reverts at start and every `everyMs`, one look at a time. */
export function startTemporaryTicks(
  temporary: Pick<TemporaryChanges, 'tick'>,
  everyMs: number,
  logger: Pick<Log, 'warn'>,
): TemporaryTicks {
  return startTicks('due temporary changes', () => temporary.tick(), everyMs, logger);
}
