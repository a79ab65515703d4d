/**
 * Filing a change request, decided: from what is asked (the plan and its terms), who files it
 * (a person's command or form, break-glass, or the bot's own Extend and Undo) and the rules in
 * force as already judged on a fresh record, whether it is refused (and why), filed for approval,
 * or applied at once. Pure: the runner (approval/filing.ts) reads the service, asks the policy for
 * its ruling and the break-glass terms, draws the id, and performs what this decides.
 *
 * Reverts are the other request the bot files itself; they need no approval and no window (they
 * only take back what was granted), so the grant machine builds them (core/change/grant.ts's
 * revertCandidate) and applies them as `apply-unreviewed`.
 */
import { isContainment } from '../change/kinds/index.js';
import type { ChangePlan, ChangeRequest, TemporaryTerms } from '../change/types.js';
import { breakGlassRefusal, type BreakGlassRefusal, type BreakGlassTerms } from '../policy/breakglass.js';
import { asksOf, unjustified, type Unjustified } from '../policy/justification.js';
import type { PolicyDecision, Requirement } from '../policy/types.js';
import { timingOf, type Timing } from '../policy/window.js';
import type { RuleAsks } from './types.js';

/** Who files the request, and what that origin brings with it. */
export type FilingOrigin =
  /** A person's command or form: a missing reason or ticket points at its words. */
  | { kind: 'person'; askedBy: 'command' | 'form' }
  /** Someone on the break-glass list: applied at once, approvals, windows and freezes skipped. */
  | { kind: 'break-glass'; terms: BreakGlassTerms }
  /** Extend, clicked on an applied temporary change: it prolongs `extendOf`, for its requester. */
  | { kind: 'extend'; extendOf: string; beneficiaryId?: string }
  /** Undo, clicked on an applied change. */
  | { kind: 'undo'; undoOf: string };

/** Everything filing decides on: facts, never a call. */
export interface FilingFacts {
  origin: FilingOrigin;
  /** The new request's id (drawn by the runner). */
  id: string;
  now: number;
  /** How long an ordinary request may wait for its approvals (REQUEST_TTL). */
  ttlMs: number;
  /** What the rules in force ask of it, judged on a fresh record of its service. */
  ruling: { decision: PolicyDecision; digest?: string };
  channelId: string;
  userId: string;
  organization?: string;
  plan: ChangePlan;
  temporary?: TemporaryTerms;
  reason?: string;
  ticket?: string;
  /** `at TIME`: when the requester asked it applied. */
  applyAt?: number;
  /** Posted as a reply in this thread (an extension or undo: the original's). */
  threadTs?: string;
}

/** Why a request is not filed; core/render/filing.ts words it. */
export type FilingRefusal =
  | { kind: 'denied'; decision: Extract<PolicyDecision, { kind: 'deny' }> }
  | { kind: 'unjustified'; lacking: Unjustified; askedBy: 'command' | 'form' }
  /** Extend or Undo lacks a reason or ticket a rule asks for: their click asks for it in a form. */
  | { kind: 'ask-in-form'; lacking: Unjustified; asks: readonly RuleAsks[] }
  | { kind: 'frozen'; timing: Extract<Timing, { kind: 'frozen' }> }
  | { kind: 'never-open'; timing: Extract<Timing, { kind: 'never' }> }
  /** Deferred, an extension would apply after the revert it is meant to push back. */
  | { kind: 'extension-outside-window'; timing: Extract<Timing, { kind: 'deferred' }> }
  | { kind: 'break-glass'; refusal: BreakGlassRefusal };

/** What happens to a filed request: it waits for approvals, or is applied at once (or at its time). */
export type FilingNext =
  | { kind: 'approval' }
  /** Every matching rule asks no approval: applied at once, the rules named in the audit. */
  | { kind: 'auto'; rules: readonly string[] }
  | { kind: 'break-glass' };

export type FilingDecision =
  | { kind: 'refused'; refusal: FilingRefusal }
  | {
      kind: 'file';
      request: ChangeRequest;
      next: FilingNext;
      /** Moved to its rules' next window opening (a scheduled change the requester may cancel). */
      deferred?: Extract<Timing, { kind: 'deferred' }>;
    };

export function decideFiling(facts: FilingFacts): FilingDecision {
  const { origin } = facts;
  return origin.kind === 'break-glass' ? breakingGlass(facts, origin.terms) : underTheRules(facts, origin);
}

function underTheRules(facts: FilingFacts, origin: Exclude<FilingOrigin, { kind: 'break-glass' }>): FilingDecision {
  const { decision } = facts.ruling;
  if (decision.kind === 'deny') return refused({ kind: 'denied', decision });
  // A reason or ticket a matching rule asks for is refused before anything is stored or posted.
  // Extend and Undo carry the original's (or what their form was given); when a rule asks for
  // more, their click asks for it in a form.
  const lacking = unjustified(decision.requirements, { reason: facts.reason, ticket: facts.ticket });
  if (lacking)
    return refused(
      origin.kind === 'person'
        ? { kind: 'unjustified', lacking, askedBy: origin.askedBy }
        : { kind: 'ask-in-form', lacking, asks: asksOf(decision.requirements) },
    );
  // Windows and freezes, judged at the time the change would apply: refused in a freeze, moved
  // to the next opening outside a window. A time already past (a caller's slow path) is no
  // schedule: the request is an ordinary one.
  const asked = facts.applyAt !== undefined && facts.applyAt > facts.now ? facts.applyAt : undefined;
  const timing = timingOf(decision.requirements, asked ?? facts.now);
  if (timing.kind === 'frozen') return refused({ kind: 'frozen', timing });
  if (timing.kind === 'never') return refused({ kind: 'never-open', timing });
  if (timing.kind === 'deferred' && origin.kind === 'extend')
    return refused({ kind: 'extension-outside-window', timing });
  const deferred = timing.kind === 'deferred' ? timing : undefined;
  const applyAt = deferred?.at ?? asked;
  const request: ChangeRequest = {
    ...common(facts, decision.requirements, expiryOf(facts, asked, deferred?.at)),
    ...(applyAt !== undefined ? { applyAt } : {}),
    ...(origin.kind === 'extend' ? extension(origin) : {}),
    ...(origin.kind === 'undo' ? { undoOf: origin.undoOf } : {}),
    ...(facts.threadTs ? { threadTs: facts.threadTs } : {}),
  };
  const next: FilingNext =
    decision.kind === 'auto' ? { kind: 'auto', rules: decision.requirements.map((r) => r.rule) } : { kind: 'approval' };
  return { kind: 'file', request, next, ...(deferred ? { deferred } : {}) };
}

/** Break-glass skips approvals, windows and freezes, never a deny rule; its terms are checked instead. */
function breakingGlass(facts: FilingFacts, terms: BreakGlassTerms): FilingDecision {
  const { decision } = facts.ruling;
  const refusal = breakGlassRefusal(terms, {
    reason: facts.reason,
    durationMs: facts.temporary?.durationMs,
    decision,
    forGood: isContainment(facts.plan),
  });
  if (refusal) return refused({ kind: 'break-glass', refusal });
  // breakGlassRefusal refuses every deny; this only tells the compiler.
  if (decision.kind === 'deny') return refused({ kind: 'denied', decision });
  const request: ChangeRequest = {
    ...common(facts, decision.requirements, facts.now + facts.ttlMs),
    breakGlass: true,
  };
  return { kind: 'file', request, next: { kind: 'break-glass' } };
}

function common(facts: FilingFacts, requirements: readonly Requirement[], expiresAt: number): ChangeRequest {
  return {
    id: facts.id,
    channelId: facts.channelId,
    requesterId: facts.userId,
    ...(facts.organization ? { organization: facts.organization } : {}),
    plan: facts.plan,
    createdAt: facts.now,
    expiresAt,
    status: 'pending',
    requirements: [...requirements],
    ...(facts.ruling.digest ? { policyDigest: facts.ruling.digest } : {}),
    ...(facts.temporary ? { temporary: facts.temporary } : {}),
    ...(facts.reason ? { reason: facts.reason } : {}),
    ...(facts.ticket ? { ticket: facts.ticket } : {}),
  };
}

/**
 * A request asked for a time (`at`) may be approved until then (its time, or the window opening
 * it was moved to). One only deferred to its window's next opening keeps the usual approval time
 * when that opens sooner: asked a minute before the opening it must not expire a minute later.
 * Approved after the opening, it applies at once (or at the next opening if closed again).
 */
function expiryOf(facts: FilingFacts, asked: number | undefined, deferredTo: number | undefined): number {
  if (asked !== undefined) return deferredTo ?? asked;
  return Math.max(deferredTo ?? 0, facts.now + facts.ttlMs);
}

function extension(
  origin: Extract<FilingOrigin, { kind: 'extend' }>,
): Pick<ChangeRequest, 'extendOf' | 'beneficiaryId'> {
  return { extendOf: origin.extendOf, ...(origin.beneficiaryId ? { beneficiaryId: origin.beneficiaryId } : {}) };
}

const refused = (refusal: FilingRefusal): FilingDecision => ({ kind: 'refused', refusal });
