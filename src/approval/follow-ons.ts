/**
 * The requests filed on the back of another: Ask again (a stale request asked anew by its
 * requester), Extend and Undo (clicked on an applied change, effects of core/approval/grant.ts),
 * and the review of an applied break-glass change. Each is filed through filing.ts, under the
 * same decision as a person's request (core/approval/filing.ts), or, for a review, created once
 * and posted through the step machine.
 */
import { readPlanTarget } from './read-target.js';
import type { Effect } from '../core/approval/types.js';
import type { ChangeRequest } from '../core/change/types.js';
import { reviewIdOf, reviewRequestOf } from '../core/policy/breakglass.js';
import type { Justification } from '../core/policy/justification.js';
import { askAgainRefusedText, offersAskAgain, problemsText } from '../core/render/change.js';
import { filedText } from '../core/render/grant.js';
import { followOnNotAllowedText } from '../core/render/organizations.js';
import type { ClickOrigin, DecisionReply, RequestOutcome } from '../ports/index.js';
import type { Filing } from './filing.js';
import { cloudOf, notify, tellApprovers, unseenBy, type FlowKit } from './flow-kit.js';
import { threadOf } from './flow-messages.js';

/** A stale request is asked again once (a double click files one); a failed filing gives the claim back. */
const ASK_AGAIN_CLAIM_MS = 7 * 86_400_000;

export class FollowOns {
  constructor(
    private readonly kit: FlowKit,
    private readonly filing: Filing,
  ) {}

  /**
   * Ask again, on a request refused as stale: the same change (what was asked, its reason, ticket
   * and duration), planned against the service as it is now and filed anew by its requester, once.
   */
  async askAgain(id: string, userId: string, origin?: ClickOrigin): Promise<DecisionReply> {
    const { store, policy } = this.kit.options;
    const original = await store.get(id);
    const intent = original?.plan.intent;
    if (!original || !intent || !offersAskAgain(original)) return { text: askAgainRefusedText('not-stale') };
    if (userId !== original.requesterId)
      return (
        (await unseenBy(policy, userId, original, origin)) ?? { text: askAgainRefusedText('not-requester', original) }
      );
    // Filed on their behalf, not by a command: the channel's guardrails as they stand now.
    const refused = await policy.followOnRefusal?.(original);
    if (refused) return { text: followOnNotAllowedText('ask-again', refused) };
    const claim = `ask-again:${id}`;
    if (!(await store.claimOnce(claim, ASK_AGAIN_CLAIM_MS))) return { text: askAgainRefusedText('already') };
    const cloud = cloudOf(this.kit.options, original.organization);
    const service = await readPlanTarget(cloud, original.plan, {
      fresh: true,
      priority: 'command',
      person: userId,
    }).catch(() => undefined);
    const outcome: RequestOutcome = service
      ? await this.filing.request({
          channelId: original.channelId,
          ...(original.organization ? { organization: original.organization } : {}),
          userId,
          service,
          // Read afresh just now: filing judges the rules on it without a second read.
          serviceReadAt: Date.now(),
          intent,
          ...(original.temporary ? { temporary: original.temporary } : {}),
          ...(original.reason ? { reason: original.reason } : {}),
          ...(original.ticket ? { ticket: original.ticket } : {}),
        })
      : { ok: false, text: askAgainRefusedText('service-gone') };
    if (outcome.ok) return { text: filedText(outcome.request, 'the channel') };
    // Not filed (the change is no longer needed, a rule refuses it…): the button may be used again.
    await store.releaseClaim(claim).catch(() => undefined);
    return { text: 'text' in outcome ? outcome.text : problemsText(outcome.problems) };
  }

  /** An extension (judged by the rules of the change it prolongs) or an undo, filed as a request of its own. */
  async fileFollowOn(
    grant: ChangeRequest,
    effect: Extract<Effect, { type: 'file-follow-on' }>,
  ): Promise<RequestOutcome> {
    // The channel's guardrails as they stand now: a rule asking no approval would apply it at once.
    const refused = await this.kit.options.policy.followOnRefusal?.(
      effect.action === 'undo' ? { ...grant, plan: effect.plan } : grant,
    );
    if (refused) return { ok: false, text: followOnNotAllowedText(effect.action, refused) };
    const common = {
      channelId: grant.channelId,
      userId: effect.userId,
      // An extension or undo changes the organization of the change it follows.
      ...(grant.organization ? { organization: grant.organization } : {}),
      service: effect.service,
      plan: effect.plan,
      serviceIsFresh: true,
      ...threadOf(grant),
      // Buttons: they carry the original's reason and ticket, shown with them, unless the form a
      // rule opened for the click was given others.
      ...justificationOf(effect.given ?? grant),
    };
    if (effect.action === 'undo') return this.filing.file({ ...common, undoOf: grant.id });
    return this.filing.file({
      ...common,
      judgedAs: grant.plan,
      beneficiaryId: grant.requesterId,
      ...(grant.temporary ? { temporary: grant.temporary } : {}),
      extendOf: grant.id,
    });
  }

  /**
   * The review of an applied break-glass change: a request in its thread that sends nothing, which
   * an approver of its rules marks reviewed (Approve by another name) and which is reminded and
   * escalated like any waiting request until then. Filed once: the store creates it only if absent,
   * and only its creator posts it, whichever replica (or restart) got there first.
   */
  async fileReview(original: ChangeRequest): Promise<void> {
    const { policy, store, logger } = this.kit.options;
    const review = reviewRequestOf(original, policy.reviewRequirement(original.requirements ?? []), this.kit.now());
    if (!(await store.createIfAbsent(review))) return;
    notify(this.kit.options, 'requested', review, review.requesterId);
    // Created here: the ordinary filing goes on from there (posted in the thread, its ts recorded).
    const filed = await this.kit.run({ request: review, work: { phase: 'filing' } }, { type: 'created' });
    if (filed.reply?.kind !== 'filed') {
      logger.error(`change ${original.id}: its break-glass review could not be filed`);
      return;
    }
    tellApprovers(this.kit, filed.reply.request, 'reviewers');
  }

  /**
   * At start: files the review of every applied break-glass change that has none, because the
   * replica applying it stopped between recording it and filing the review. Break-glass changes
   * are temporary, so each one not yet reverted is in the schedule of reverts.
   */
  async fileOwedReviews(): Promise<number> {
    const { store, logger } = this.kit.options;
    let filed = 0;
    for (const { id } of await store.scheduledReverts()) {
      const grant = await store.get(id);
      if (!grant?.breakGlass || grant.status !== 'applied' || (await store.get(reviewIdOf(id)))) continue;
      await this.kit.track(this.fileReview(grant));
      filed += 1;
    }
    if (filed > 0) logger.info(`filed ${filed} break-glass review(s) a stopped replica had not filed`);
    return filed;
  }
}

function justificationOf(given: Justification): Justification {
  return { ...(given.reason ? { reason: given.reason } : {}), ...(given.ticket ? { ticket: given.ticket } : {}) };
}
