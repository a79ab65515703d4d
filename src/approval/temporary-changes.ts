/**
 * Temporary changes that undo themselves, and Undo.
 *
 * An applied temporary request is scheduled for its revert by the store in the same step that
 * records it applied. Every replica looks for due reverts (at start, then every tick); the revert
 * of CR-X is the change request CR-X-R, planned against the service as it is now and created only
 * if absent, so two replicas never file two. It needs no approval and is applied through the
 * approval flow's exactly-once path (lease, service lock, fresh re-read, confirm before send,
 * takeover after a crash). It lives in the original's thread, like the reminder before it.
 */
import { operationsOf } from '../core/change/operations.js';
import { startTicks, type Ticks } from '../scheduler/ticks.js';
import { planChange } from '../core/change/plan.js';
import { currentState } from '../core/change/state.js';
import {
  formatDuration,
  intentIsEmpty,
  planRevert,
  planUndo,
  withoutTakenOver,
  type LaterChange,
} from '../core/change/temporary.js';
import type { ChangePlan, ChangeRequest, FieldChange, TouchedState } from '../core/change/types.js';
import { changeSummary } from '../core/change/summary.js';
import { requestMessage } from '../core/render/change.js';
import { isDeletedState, isMovingState } from '../core/service/states.js';
import { filedText } from '../core/render/approval.js';
import { code, distinctSentences, esc } from '../core/render/mrkdwn.js';
import {
  nothingToRevertMessage,
  reminderClosedMessage,
  reminderMessage,
  scheduledRevertMessage,
  temporaryListBlocks,
} from '../core/render/temporary.js';
import type {
  ApprovalPolicy,
  ChangeStore,
  DecisionReply,
  Log,
  Messenger,
  RequestOutcome,
  ServiceDirectory,
} from '../ports/index.js';
import type { ApprovalFlow } from './approval-flow.js';

/** Extend and Undo are buttons: they carry the original's reason and ticket, shown with them. */
function justificationOf(original: ChangeRequest): Pick<ChangeRequest, 'reason' | 'ticket'> {
  return {
    ...(original.reason ? { reason: original.reason } : {}),
    ...(original.ticket ? { ticket: original.ticket } : {}),
  };
}

/** Who reverts at expiry, in the audit trail and the thread. */
export const BOT_ACTOR = 'the bot';
/** A revert waits this long for a replica to apply it (far beyond any outage worth surviving). */
const REVERT_PENDING_MS = 7 * 24 * 3600 * 1000;
/** Due reverts and reminders handled per tick; the rest wait for the next one. */
const BATCH = 20;
/** Reverts of one grant tried before the bot gives up and asks for a hand (loudly, hourly). */
const REVERT_ATTEMPTS_MAX = 20;
/** A failing revert is tried again after this, doubling up to the maximum. */
const REVERT_RETRY_FIRST_MS = 5_000;
const REVERT_RETRY_MAX_MS = 10 * 60_000;
/** A revert whose record is missing is looked at (and logged) again this much later. */
const MISSING_RETRY_MS = 3600_000;
/** Of a flood of clicks on one Extend or Undo button, one files a request within this window. */
const CLICK_WINDOW_MS = 10_000;

export interface TemporaryChangesOptions {
  flow: Pick<ApprovalFlow, 'applyUnreviewed' | 'file'>;
  store: ChangeStore;
  cloud: ServiceDirectory;
  /** Each organization's directory (ORGANIZATIONS_FILE); without it every read goes through `cloud`. */
  cloudOf?: (organization: string | undefined) => ServiceDirectory;
  messenger: Messenger;
  policy: ApprovalPolicy;
  logger: Pick<Log, 'info' | 'warn' | 'error'>;
  /** Told when a due revert finds its request gone (a metric counts it). */
  onMissingRecord?: (id: string) => void;
  /** The approval flow's clock: reverts are due on it (tests move it forward). */
  now: () => number;
}

export class TemporaryChanges {
  constructor(private readonly options: TemporaryChangesOptions) {}

  /** Reads and follow-ups of a change go to its own organization. */
  private cloudOf(original: ChangeRequest): ServiceDirectory {
    return this.options.cloudOf?.(original.organization) ?? this.options.cloud;
  }

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
    try {
      await this.revert(id, BOT_ACTOR);
      this.failedReverts.delete(id);
    } catch (error) {
      const failures = (this.failedReverts.get(id) ?? 0) + 1;
      this.failedReverts.set(id, failures);
      const retryInMs = Math.min(REVERT_RETRY_MAX_MS, REVERT_RETRY_FIRST_MS * 2 ** (failures - 1));
      this.options.logger.warn(
        `temporary change ${id}: its revert failed (${failures} time(s)): ${error instanceof Error ? error.message : String(error)}; trying again in ${Math.round(retryInMs / 1000)} s`,
      );
      await this.options.store.postponeRevert(id, this.options.now() + retryInMs).catch(() => undefined);
    }
  }

  /** Failures of each revert in a row, in this process (for the back-off). */
  private readonly failedReverts = new Map<string, number>();

  /** The approval flow's follow-up after a request settled. */
  async afterSettled(request: ChangeRequest): Promise<void> {
    if (request.revertOf) return this.afterRevert(request, request.revertOf);
    if (request.status !== 'applied' || !request.temporary) return;
    const target = request.extendOf ?? request.id;
    const dueAt = (await this.options.store.scheduledReverts()).find((entry) => entry.id === target)?.dueAt;
    const threadTs = request.threadTs ?? request.messageTs;
    if (dueAt === undefined || !threadTs) return;
    const original = request.extendOf ? await this.options.store.get(request.extendOf) : request;
    if (original)
      await this.options.messenger.post(request.channelId, {
        ...scheduledRevertMessage(original, dueAt, Boolean(request.extendOf)),
        threadTs,
      });
  }

  /**
   * Files (if nobody did yet) and applies the revert of a temporary request. Idempotent: every
   * replica may call it for the same request at the same time; one revert is filed and applied once.
   */
  async revert(originalId: string, actorId: string): Promise<DecisionReply> {
    const { store } = this.options;
    const original = await store.get(originalId);
    if (!original) return this.recordMissing(originalId);
    if (!original.temporary || original.status !== 'applied') {
      // Not applied (yet, or ever): nothing was granted, so there is nothing to take back.
      await store.forgetRevert(originalId);
      return { text: 'This temporary change is no longer active, so there is nothing to revert.' };
    }
    const { attempt, revert: found } = await this.currentRevert(originalId);
    if (found?.status === 'failed' && attempt >= REVERT_ATTEMPTS_MAX) return this.gaveUp(original, found);
    const revertId = revertIdOf(originalId, found?.status === 'failed' ? attempt + 1 : attempt);
    const revert =
      found && found.status !== 'failed'
        ? found
        : ((await store.get(revertId)) ?? (await this.fileRevert(original, revertId, actorId)));
    if (!revert) return { text: 'The service of this change no longer exists, so there is nothing to revert.' };
    if (revert.status === 'applying')
      return { text: `This temporary change is being reverted right now: see ${revert.id} in its thread.` };
    if (revert.status !== 'pending') {
      await store.forgetRevert(originalId);
      return {
        text: `This temporary change was already reverted (or found changed by someone else): see ${revert.id} in its thread.`,
      };
    }
    if (sendsNothing(revert.plan)) return this.settleNothingLeft(revert, actorId);
    return this.options.flow.applyUnreviewed(revert, actorId);
  }

  /**
   * The latest attempt at reverting a grant: CR-X-R, then CR-X-R2, CR-X-R3… after each one that
   * failed with something left to take back (the API refused it, the service changed meanwhile).
   * A failed attempt with nothing left to revert is final, like an applied one.
   */
  private async currentRevert(originalId: string): Promise<{ attempt: number; revert: ChangeRequest | undefined }> {
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

  /**
   * A revert attempt settled. Applied, or nothing was left: the grant is done with. Failed with
   * something left to take back: never forgotten, tried again later with a back-off, and said.
   */
  private async afterRevert(revert: ChangeRequest, originalId: string): Promise<void> {
    if (!isRetryable(revert)) return this.finishGrant(originalId, revert.id);
    const attempt = attemptOf(revert.id);
    const retryInMs = Math.min(REVERT_RETRY_MAX_MS, REVERT_RETRY_FIRST_MS * 2 ** (attempt - 1));
    this.options.logger.warn(
      `temporary change ${originalId}: revert ${revert.id} failed (${revert.outcome?.message ?? 'no reason given'}); the bot tries again in ${Math.round(retryInMs / 1000)} s`,
    );
    await this.options.store.postponeRevert(originalId, this.options.now() + retryInMs);
  }

  /** After the last attempt failed too: loud, and looked at again hourly (never dropped). */
  private async gaveUp(original: ChangeRequest, last: ChangeRequest): Promise<DecisionReply> {
    this.options.logger.error(
      `temporary change ${original.id}: ${REVERT_ATTEMPTS_MAX} reverts failed (the last, ${last.id}: ${last.outcome?.message ?? 'no reason given'}); the access it granted is still open. Take it back by hand.`,
    );
    await this.options.store.postponeRevert(original.id, this.options.now() + MISSING_RETRY_MS);
    return {
      text: `:rotating_light: The bot could not revert ${code(original.id)} after ${REVERT_ATTEMPTS_MAX} attempts; take the access back by hand (see ${code(last.id)}).`,
    };
  }

  /**
   * A revert is due but its request is gone from the store: what it granted can no longer be
   * known, so the bot cannot take it back. Never dropped silently: logged as an error every hour
   * (the revert stays scheduled), counted, and told to whoever clicked.
   */
  private async recordMissing(originalId: string): Promise<DecisionReply> {
    this.options.logger.error(
      `temporary change ${originalId}: its revert is due but the request is no longer in the store, so the bot cannot take the access back. Check the service by hand and remove what ${originalId} granted.`,
    );
    this.options.onMissingRecord?.(originalId);
    await this.options.store.postponeRevert(originalId, this.options.now() + MISSING_RETRY_MS);
    return {
      text: `:rotating_light: The bot no longer has the record of ${code(originalId)}, so it cannot revert it. Check the service by hand.`,
    };
  }

  /** Creates CR-X-R against the service as it is now, only if absent; its creator posts it. */
  private async fileRevert(
    original: ChangeRequest,
    revertId: string,
    actorId: string,
  ): Promise<ChangeRequest | undefined> {
    const { store, now } = this.options;
    const read = await this.cloudOf(original).getService(original.plan.serviceId, { fresh: true });
    const service = read && !isDeletedState(read.state) ? read : undefined;
    const { intent, leftAlone } = service
      ? withoutTakenOver(planRevert(original.plan, service), await this.laterChanges(original))
      : { intent: {}, leftAlone: ['The service no longer exists.'] };
    const planned = service && !intentIsEmpty(intent) ? planChange(service, intent) : undefined;
    const problems = planned && !planned.ok ? planned.problems.map((p) => p.message) : [];
    // Something is left to take back but cannot be asked for while the service is on its way
    // (a stop's revert while it is still stopping): nothing is filed, and it is tried again later.
    if (problems.length > 0 && isMovingState(service?.state)) throw new RevertNotYet(problems.join(' '));
    const plan: ChangePlan = planned?.ok
      ? { ...planned.plan, warnings: [...leftAlone, ...planned.plan.warnings] }
      : {
          serviceId: original.plan.serviceId,
          serviceName: original.plan.serviceName,
          update: {},
          changes: [],
          warnings: [...leftAlone, ...problems],
          before: {},
        };
    const createdAt = now();
    const candidate: ChangeRequest = {
      id: revertId,
      channelId: original.channelId,
      requesterId: actorId,
      ...organizationOf(original),
      plan,
      createdAt,
      expiresAt: createdAt + REVERT_PENDING_MS,
      status: 'pending',
      revertOf: original.id,
      ...(original.messageTs ? { threadTs: original.messageTs } : {}),
    };
    if (await store.createIfAbsent(candidate)) await this.postRevert(candidate);
    return store.get(revertId);
  }

  /** Changes to the grant's service applied after it by other requests (not its extensions), oldest first. */
  private async laterChanges(original: ChangeRequest): Promise<LaterChange[]> {
    const applied = await this.options.store.readApplied({
      from: original.decidedAt ?? original.createdAt,
      to: this.options.now(),
    });
    return applied.filter(
      (entry) =>
        entry.serviceId === original.plan.serviceId &&
        entry.changeId !== original.id &&
        !entry.changeId.startsWith(`${original.id}-`),
    );
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
      this.options.logger.warn(`change ${revert.id}: could not post the revert: ${String(error)}`);
    }
  }

  /** Someone already took everything back: record that the bot found so, and leave the service. */
  private async settleNothingLeft(revert: ChangeRequest, actorId: string): Promise<DecisionReply> {
    const message = `Nothing to revert: ${revert.plan.warnings.join(' ')}`;
    const settled = await this.options.store.transition(revert.id, {
      from: ['pending'],
      to: 'failed',
      actorId,
      now: this.options.now(),
      outcome: { message },
      audit: { action: 'stale', summary: `Revert of ${revert.revertOf ?? ''}`, message },
    });
    if (settled.ok && revert.revertOf) await this.finishGrant(revert.revertOf, revert.id);
    return { text: message };
  }

  private async remind(id: string): Promise<void> {
    const { store, messenger } = this.options;
    if (!(await store.claimReminder(id))) return;
    const request = await store.get(id);
    const dueAt = (await store.scheduledReverts()).find((entry) => entry.id === id)?.dueAt;
    if (!request?.messageTs || dueAt === undefined) return;
    const ts = await messenger.post(request.channelId, {
      ...reminderMessage(request, dueAt),
      threadTs: request.messageTs,
    });
    await store.setReminderTs(id, ts);
  }

  /**
   * The grant is done with (reverted, or nothing was left): its schedule goes, and its reminder
   * loses Extend and Revert now, which could only answer "no longer active" from now on.
   */
  private async finishGrant(originalId: string, revertId: string): Promise<void> {
    await this.options.store.forgetRevert(originalId);
    const original = await this.options.store.get(originalId);
    if (!original?.reminderTs) return;
    await this.options.messenger
      .update(original.channelId, original.reminderTs, reminderClosedMessage(original, revertId))
      .catch((error: unknown) =>
        this.options.logger.warn(
          `temporary change ${originalId}: could not take the buttons off its reminder: ${error instanceof Error ? error.message : String(error)}`,
        ),
      );
  }

  /** Revert now: the requester or anyone who may approve it; no approval needed. */
  async revertNow(originalId: string, userId: string): Promise<DecisionReply> {
    const original = await this.options.store.get(originalId);
    if (!original?.temporary) return { text: 'This is not a temporary change, so there is nothing to revert.' };
    const verdict = await this.options.policy.mayAct(userId, original);
    if (!verdict.allowed)
      return {
        text: `:no_entry_sign: Only the requester or an approver can revert this change now. ${verdict.reason}`,
      };
    let reply: DecisionReply;
    try {
      reply = await this.revert(originalId, userId);
    } catch (error) {
      if (!(error instanceof RevertNotYet)) throw error;
      return {
        text: `:hourglass_flowing_sand: ${code(originalId)} cannot be reverted right now: ${esc(error.message)} The bot tries again shortly.`,
      };
    }
    if (reply) return reply;
    const { revert } = await this.currentRevert(originalId);
    if (revert?.status === 'failed' && isRetryable(revert))
      return {
        text: `:x: The revert of ${code(originalId)} was not applied: ${esc(revert.outcome?.message ?? 'the update failed.')} The bot tries again shortly; the thread shows the outcome.`,
      };
    return { text: `:rewind: Reverted ${code(originalId)} now; the thread shows the outcome.` };
  }

  /** Extend: a new change request, approved like any other, moving the revert by the same duration. */
  async extend(originalId: string, userId: string): Promise<DecisionReply> {
    const { store } = this.options;
    const original = await store.get(originalId);
    const dueAt = (await store.scheduledReverts()).find((entry) => entry.id === originalId)?.dueAt;
    if (!original?.temporary || dueAt === undefined)
      return {
        text: 'This temporary change is no longer active (it was reverted), so it cannot be extended. Ask for it again if it is still needed.',
      };
    const refused = await this.refuseClick(original, userId, 'extend', (r) => r.extendOf === originalId);
    if (refused) return refused;
    const service = await this.cloudOf(original).getService(original.plan.serviceId, {
      fresh: true,
      priority: 'read',
      person: userId,
    });
    if (!service) return { text: 'The service of this change no longer exists.' };
    const outcome = await this.options.flow.file({
      channelId: original.channelId,
      ...organizationOf(original),
      userId,
      service,
      plan: extensionPlan(original, currentState(service), dueAt),
      // Judged by the rules of the change it prolongs (its kinds, risks and tags), never as "nothing sent".
      judgedAs: original.plan,
      serviceIsFresh: true,
      beneficiaryId: original.requesterId,
      temporary: original.temporary,
      extendOf: original.id,
      ...(original.messageTs ? { threadTs: original.messageTs } : {}),
      ...justificationOf(original),
    });
    if (!outcome.ok) await store.releaseClaim(`extend:${original.id}`);
    return filedReply(outcome, 'the thread');
  }

  /**
   * Before any API call: only the requester or someone eligible to approve may act on an applied
   * change, and a flood of clicks on one button files one request (an open one is pointed to).
   */
  private async refuseClick(
    original: ChangeRequest,
    userId: string,
    action: 'extend' | 'undo',
    isSame: (pending: ChangeRequest) => boolean,
  ): Promise<DecisionReply> {
    const { store, policy, now } = this.options;
    const verdict = await policy.mayAct(userId, original);
    const verb = action === 'extend' ? 'extend' : 'undo';
    if (!verdict.allowed)
      return { text: `:no_entry_sign: Only the requester or an approver can ${verb} this change. ${verdict.reason}` };
    const open = (await store.listPending(original.channelId, now())).find(isSame);
    if (open)
      return {
        text: `:information_source: ${action === 'extend' ? 'An extension' : 'An undo'} of ${code(original.id)} is already asked for: ${code(open.id)}. Approve or cancel that one.`,
      };
    if (!(await store.claimOnce(`${action}:${original.id}`, CLICK_WINDOW_MS)))
      return {
        text: `:information_source: ${action === 'extend' ? 'An extension' : 'An undo'} of ${code(original.id)} is being filed right now; look for it in ${original.messageTs ? 'its thread' : 'the channel'}.`,
      };
    return undefined;
  }

  /** Undo: the inverse of an applied change, planned against the service as it is now. */
  async undo(requestId: string, userId: string): Promise<DecisionReply> {
    const original = await this.options.store.get(requestId);
    if (original?.status !== 'applied') return { text: 'Only an applied change can be undone.' };
    const refused = await this.refuseClick(original, userId, 'undo', (r) => r.undoOf === requestId);
    if (refused) return refused;
    const service = await this.cloudOf(original).getService(original.plan.serviceId, {
      fresh: true,
      priority: 'read',
      person: userId,
    });
    if (!service) return { text: 'The service of this change no longer exists, so there is nothing to undo.' };
    const { intent, leftAlone } = planUndo(original.plan, service);
    if (intentIsEmpty(intent)) {
      return {
        text: `:information_source: Nothing is left to undo of ${code(original.id)}: ${esc(leftAlone.join(' ') || 'the service no longer shows it.')}`,
      };
    }
    const planned = planChange(service, intent);
    const outcome: RequestOutcome = planned.ok
      ? await this.options.flow.file({
          channelId: original.channelId,
          ...organizationOf(original),
          userId,
          service,
          plan: planned.plan,
          serviceIsFresh: true,
          undoOf: original.id,
          ...(original.messageTs ? { threadTs: original.messageTs } : {}),
          ...justificationOf(original),
        })
      : { ok: false, problems: planned.problems };
    if (!outcome.ok) await this.options.store.releaseClaim(`undo:${original.id}`);
    const reply = filedReply(outcome, original.messageTs ? 'the thread' : 'the channel');
    return reply && leftAlone.length > 0
      ? { text: `${reply.text} Left out, already undone: ${esc(leftAlone.join(' '))}` }
      : reply;
  }

  /** `temporary`: this channel's active temporary changes, soonest revert first. */
  async list(channelId: string) {
    const entries: Array<{ request: ChangeRequest; dueAt: number }> = [];
    for (const { id, dueAt } of await this.options.store.scheduledReverts()) {
      const request = await this.options.store.get(id);
      if (request?.channelId === channelId && request.status === 'applied') entries.push({ request, dueAt });
    }
    return { text: `${entries.length} temporary changes`, blocks: temporaryListBlocks(entries) };
  }

  private async logFailure(id: string, work: Promise<unknown>): Promise<void> {
    await work.catch((error: unknown) =>
      this.options.logger.warn(`temporary change ${id}: ${error instanceof Error ? error.message : String(error)}`),
    );
  }
}

/**
 * An extension sends nothing; approving it moves the revert. Its stale check covers the granted
 * fields, so an extension approved after the grant was taken back (or changed) is refused.
 */
function extensionPlan(original: ChangeRequest, now: Required<TouchedState>, dueAt: number): ChangePlan {
  const fields = Object.keys(original.plan.before) as Array<keyof TouchedState>;
  const before: TouchedState = {};
  for (const field of fields) Object.assign(before, { [field]: now[field] });
  const duration = formatDuration(original.temporary?.durationMs ?? 0);
  const change: FieldChange = {
    field: fields[0] ?? 'ipAccessList',
    label: `Revert of ${original.id}`,
    before: `at ${new Date(dueAt).toISOString().slice(0, 16).replace('T', ' ')} UTC`,
    after: `${duration} after approval`,
  };
  return {
    serviceId: original.plan.serviceId,
    serviceName: original.plan.serviceName,
    update: {},
    changes: [change],
    warnings: [`Keeps ${changeSummary(original.plan.changes)} for ${duration} more.`],
    before,
  };
}

function filedReply(outcome: RequestOutcome, where: string): DecisionReply {
  if (outcome.ok) return { text: filedText(outcome.request, where) };
  if ('text' in outcome) return { text: outcome.text };
  return {
    text: `:warning: ${distinctSentences(outcome.problems.map((p) => p.message))
      .map(esc)
      .join('\n')}`,
  };
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

/**
 * A revert that cannot be planned against the service as it is now (it is still moving: stopping,
 * starting): the grant stays scheduled and the tick tries again, backing off.
 */
class RevertNotYet extends Error {
  override readonly name = 'RevertNotYet';
}

/** CR-X-R for the first attempt at reverting CR-X, then CR-X-R2, CR-X-R3… */
function revertIdOf(originalId: string, attempt: number): string {
  return attempt <= 1 ? `${originalId}-R` : `${originalId}-R${attempt}`;
}

function attemptOf(revertId: string): number {
  const match = /-R(\d*)$/.exec(revertId);
  return match?.[1] ? Number(match[1]) : 1;
}

/** A revert that failed with something left to take back; one that found nothing left is final. */
function isRetryable(revert: ChangeRequest): boolean {
  return revert.status === 'failed' && !sendsNothing(revert.plan);
}

/** A revert with no operation left: everything it would take back was already changed. */
function sendsNothing(plan: ChangePlan): boolean {
  return operationsOf(plan).length === 0;
}

/** A revert, extension or undo changes the organization of the change it follows. */
const organizationOf = (original: ChangeRequest) =>
  original.organization ? { organization: original.organization } : {};
