/**
 * The effects about a grant (core/approval/grant.ts: a temporary change's revert, Revert now,
 * Extend, Undo), performed through GrantIo, the flow itself (a revert is applied as a request of
 * its own) and follow-ons.ts (an extension or undo is filed like any request).
 */
import { GRANT_EFFECTS, type Effect, type FlowEvent } from '../core/approval/types.js';
import { replyText } from '../core/render/approval.js';
import { CloudApiError } from '../core/service/api-error.js';
import type { FlowKit, Run } from './flow-kit.js';
import type { FollowOns } from './follow-ons.js';

type GrantEffect = Extract<Effect, { type: (typeof GRANT_EFFECTS)[number] }>;

/** Effects about a grant (core/approval/grant.ts). */
export function isGrantEffect(effect: Effect): effect is GrantEffect {
  return (GRANT_EFFECTS as readonly string[]).includes(effect.type);
}

/** The effects about a grant (core/approval/grant.ts), through GrantIo and the flow itself. */
export async function performForGrant(
  kit: FlowKit,
  followOns: FollowOns,
  effect: GrantEffect,
  run: Run,
): Promise<FlowEvent | undefined> {
  const io = kit.grants;
  // The grant's record may be gone (a due revert of a lost request): only these effects then.
  switch (effect.type) {
    case 'count-missing-record':
      io.countMissingRecord(effect.originalId);
      return undefined;
    case 'postpone-revert':
      await io.postponeRevert(effect.originalId, effect.ms);
      return undefined;
    case 'forget-revert':
      await io.forgetRevert(effect.originalId);
      return undefined;
    default:
      break;
  }
  const grant = run.state.request;
  if (!grant) return undefined;
  switch (effect.type) {
    case 'check-may-act':
      return {
        type: 'may-act-answered',
        verdict: await kit.options.policy.mayAct(effect.userId, grant, run.origin),
      };
    case 'read-revert':
      return { type: 'revert-read', latest: await io.latestRevert(grant.id) };
    case 'read-for-revert':
      return { type: 'revert-planning', ...(await io.revertInputs(grant)) };
    case 'file-revert':
      return { type: 'revert-filed', revert: await io.fileRevert(effect.candidate) };
    case 'apply-revert': {
      const applied = await kit.run(
        { request: effect.revert, work: { phase: 'idle' } },
        { type: 'apply-unreviewed', actorId: effect.actorId },
      );
      const latest = await io.latestRevert(grant.id);
      const text = applied.reply && replyText(applied.reply);
      return { type: 'revert-ran', ...(text !== undefined && applied.reply ? { reply: applied.reply } : {}), latest };
    }
    case 'settle-unsent-revert':
      return { type: 'revert-unsent-settled', ok: await io.settleUnsentRevert(effect.revert, effect.actorId) };
    case 'close-reminder':
      await io.closeReminder(grant, effect.revertId);
      await io.markReverted(grant, effect.revertId);
      return undefined;
    case 'announce-revert':
      await io.announceRevert(grant, effect.applied, effect.dueAt);
      return undefined;
    case 'claim-click':
      return { type: 'click-claimed', ...(await io.claimClick(grant, effect.action)) };
    case 'release-click':
      await io.releaseClick(grant.id, effect.action);
      return undefined;
    case 'read-for-follow-on':
      try {
        return { type: 'follow-on-read', service: await io.readForFollowOn(grant, effect.userId) };
      } catch (error) {
        if (!(error instanceof CloudApiError)) throw error;
        return { type: 'follow-on-read', service: undefined, failed: error };
      }
    case 'file-follow-on':
      return { type: 'follow-on-filed', outcome: await followOns.fileFollowOn(grant, effect) };
  }
}
