/**
 * The approval flow as data: what can happen to a change request (events), what the flow wants
 * done about it (effects), and what this process is doing with it right now (work). The decision
 * function (step.ts) maps (state, event, context) to the next state and its effects; the runner
 * (approval/approval-flow.ts) has them performed through the ports (approval/flow-effects.ts) and
 * feeds their results back.
 */
import type { AuditAction } from '../change/audit.js';
import type { ChangePlan, ChangeRequest, Operation, OperationResult } from '../change/types.js';
import type { LaterChange } from '../change/temporary.js';
import type { PlanProblem } from '../change/plan.js';
import type { CloudApiError } from '../service/api-error.js';
import type { Justification, Unjustified } from '../policy/justification.js';
import type { PolicyDecision, Requires } from '../policy/types.js';
import type { ServiceRecord } from '../service/schema.js';

export type Decision = 'approve' | 'reject' | 'cancel';

/** An allowed decision says which of the request's requirements (indices) an approval counts for. */
export type Verdict = { allowed: true; counts?: readonly number[] } | { allowed: false; reason: string };

/** Results of the store's atomic steps, as the ports report them (ports/change-store.ts). */
/** `serviceLocked`: a claim (to applying) took the service's lock in the same step. */
export type StoreTransitionResult =
  | { ok: true; request: ChangeRequest; serviceLocked?: boolean }
  | { ok: false; reason: 'conflict' | 'expired' | 'lost'; request: ChangeRequest }
  | { ok: false; reason: 'missing' };
export type StoreApprovalResult =
  | { ok: true; request: ChangeRequest; complete: boolean; serviceLocked?: boolean }
  | { ok: false; reason: 'already-approved' | 'not-needed' | 'conflict' | 'expired'; request: ChangeRequest }
  | { ok: false; reason: 'missing' };
export type LockAttempt = 'acquired' | 'busy' | 'lost';

/** Numbers the flow needs, read by the runner: two clocks, the lease and the waits. */
export interface FlowContext {
  /** The app's clock (requests, expiry, audit); tests move it. */
  now: number;
  /** A real clock for deadlines of waits (the service lock). */
  clock: number;
  leaseMs: number;
  /** How long an approval waits for another change to the same service to finish. */
  lockWaitMs: number;
  /** Pauses between re-reads when an operation's outcome is unknown. */
  recheckDelaysMs: readonly number[];
  /** The Cloud client's timeout of one request: how long an operation sent by a stopped replica may still land. */
  updateTimeoutMs: number;
}

/** Apply: this process claimed the request (approval or no approval needed). Settle: it took an abandoned one over. */
export type ApplyMode = 'apply' | 'settle';

/** What this process is doing with the request; the stored request is the rest of the state. */
export type Work =
  | { phase: 'idle' }
  | { phase: 'filing'; auto?: readonly string[] }
  | { phase: 'withdrawing'; why: 'unposted' | 'unrecorded'; notInChannel?: boolean; channelId?: string }
  | { phase: 'checking'; decision: Decision; userId: string; reason?: string }
  | { phase: 'deciding'; decision: Decision; userId: string; reason?: string }
  | { phase: 'claiming'; actorId: string }
  /** Marking a request past its expiry expired, with nobody clicking (the expiry sweep). */
  | { phase: 'expiring' }
  /** Moving a request that needs no approval to "scheduled": it waits for its time (applyAt). */
  | { phase: 'scheduling' }
  | { phase: 'locking'; actorId: string; mode: ApplyMode; deadline: number; waitedFrom: number }
  | { phase: 'reading'; actorId: string; mode: ApplyMode; attempt: number }
  /** The fresh read showed the service as the request saw it: the rules in force are judged on it. */
  | { phase: 'judging'; actorId: string; service: ServiceRecord }
  | ({ phase: 'sending'; actorId: string; mode: ApplyMode; index: number } & Progress)
  | ({ phase: 'reconciling'; actorId: string; mode: ApplyMode; index: number; attempt: number } & Progress & {
        error: CloudApiError;
      })
  /** Recording the operations confirmed so far before the next one is sent. */
  | ({ phase: 'confirming'; actorId: string; mode: ApplyMode } & Progress)
  | { phase: 'recording'; actorId: string; mode: ApplyMode; outcome: FlowOutcome }
  // A temporary change (a grant) or an applied request, acted on by the sweep or a button (grant.ts).
  /** Asking the rules whether this person may Revert now, Extend or Undo. */
  | { phase: 'grant-checking'; action: GrantAction; userId: string; dueAt?: number; given?: Justification }
  /** Reverting a grant: `asked` by a person (Revert now), else the sweep; `failures` in a row so far. */
  | {
      phase: 'reverting';
      actorId: string;
      asked: boolean;
      failures: number;
      /** The attempt being filed (CR-X-R is 1). */
      attempt?: number;
      /** The attempt being applied or settled. */
      revert?: ChangeRequest;
    }
  /** Filing an extension or an undo of it, as a request of its own. */
  | {
      phase: 'following-on';
      action: 'extend' | 'undo';
      userId: string;
      dueAt?: number;
      /** The reason and ticket the clicker gave in the form a rule asked for (else the grant's are carried). */
      given?: Justification;
      /** Undo: the parts already undone, left out of it. */
      leftAlone?: readonly string[];
    }
  | { phase: 'done' };

/** What the operations sent so far came to, and the service as the last answer showed it. */
export interface Progress {
  results: OperationResult[];
  service?: ServiceRecord;
}

export interface FlowState {
  /** The request as last read from or written to the store; undefined when the store has none. */
  request: ChangeRequest | undefined;
  work: Work;
}

export type FlowEvent =
  // Filing a new request (the state's request is the new one, not yet stored).
  | { type: 'file'; autoRules?: readonly string[] }
  | { type: 'created' }
  /** Posted: `ts` in the requester's channel, `approvalTs` in the approval channel when there is one. */
  | { type: 'posted'; ts: string; approvalTs?: string }
  /** A pending request's expiry has passed (the sweep noticed): it ends expired, and everyone is told. */
  | { type: 'expiry-due'; actorId: string }
  /** `channelId`: the channel the bot is not a member of, when that is why. */
  | { type: 'post-failed'; notInChannel: boolean; channelId?: string }
  | { type: 'message-ts-recorded' }
  | { type: 'message-ts-failed' }
  // Decisions by people.
  /** `reason`: what a rejecter typed in the Reject form (absent when no form could be shown). */
  /** `confirmedName`: the name the approver typed in the form a change that cannot be taken back asks for. */
  | { type: 'clicked'; decision: Decision; userId: string; reason?: string; confirmedName?: string }
  | { type: 'policy-answered'; verdict: Verdict }
  | { type: 'approval-recorded'; result: StoreApprovalResult }
  /**
   * A scheduled request's time has come (the due-items tick noticed): it is applied now, or, when
   * the bot noticed more than `graceMs` late (it was down), it ends expired and everyone is told.
   * `noticedAt`: when the tick listed it as due (default now). Lateness is judged from then: a tick
   * working through several due changes one after another never expires the later ones.
   */
  | { type: 'schedule-due'; actorId: string; graceMs: number; noticedAt?: number }
  // Applied without a decision: a policy that asks none, or a revert.
  | { type: 'apply-unreviewed'; actorId: string; autoRules?: readonly string[] }
  /** Someone on the break-glass list applies the request at once (approvals, windows and freezes skipped). */
  | { type: 'break-glass'; actorId: string }
  | { type: 'transitioned'; result: StoreTransitionResult }
  // Applying, under a lease.
  | { type: 'taken-over'; request: ChangeRequest }
  | { type: 'lock-answered'; attempt: LockAttempt; leaseLost: boolean }
  | { type: 'waited' }
  /** A fresh read of the request's service (undefined: it no longer exists). */
  | { type: 'service-read'; service: ServiceRecord | undefined }
  /** What the policy in force asks of the request on the record it applies to (judged by the runner). */
  | { type: 'rules-judged'; rules: PolicyDecision }
  /** `organizationGone`: the request's organization is no longer in the organizations file (after a restart). */
  | { type: 'read-failed'; error: CloudApiError | undefined; organizationGone?: string }
  | { type: 'operation-answered'; index: number; apiRequestId: string; service: ServiceRecord }
  | { type: 'operation-failed'; index: number; error: CloudApiError | undefined }
  /** The lease was gone (or the send window closed) right before the bytes would have left: nothing was sent. */
  | { type: 'send-refused'; index: number }
  /** The confirmed operations were recorded ('recorded'), or not: the lease is gone, or the store is unreachable. */
  | { type: 'confirmed-recorded'; result: 'recorded' | 'lost' | 'unavailable' }
  // Temporary changes and Undo: events about an applied request (the grant), handled by grant.ts.
  /** The grant's revert is due (the sweep); `failures`: its reverts that failed in a row in this process. */
  | { type: 'revert-due'; originalId: string; actorId: string; failures: number }
  /** Revert now, Extend or Undo clicked; `dueAt`: when the grant's revert is scheduled, if it is. */
  /** `given`: the reason and ticket typed in the form an Extend or Undo opened when a rule asked for them. */
  /** `revertedBy`: Undo of a temporary change whose revert was applied (the bot's own change, not one by hand). */
  | {
      type: 'grant-clicked';
      action: GrantAction;
      userId: string;
      dueAt?: number;
      given?: Justification;
      revertedBy?: string;
    }
  | { type: 'may-act-answered'; verdict: Verdict }
  /** The latest attempt at reverting the grant, as the store holds it. */
  | { type: 'revert-read'; latest: RevertAttempt }
  /** What a new revert is planned from: the service as it is now, and the changes applied to it since. */
  | { type: 'revert-planning'; service: ServiceRecord | undefined; later: readonly LaterChange[] }
  /** The revert attempt as stored after filing it (by this replica or another); undefined if it could not be. */
  | { type: 'revert-filed'; revert: ChangeRequest | undefined }
  /** The revert attempt ran through the flow: its reply (if any) and where the grant's reverts stand now. */
  | { type: 'revert-ran'; reply?: FlowReply; latest: RevertAttempt }
  /** A revert attempt that had nothing to send was recorded as such (or someone else settled it). */
  | { type: 'revert-unsent-settled'; ok: boolean }
  /** A revert attempt of this grant settled (its follow-up). */
  | { type: 'revert-settled'; revert: ChangeRequest }
  /** This temporary request, or an extension of it (`applied`), was applied; `dueAt`: its revert's time. */
  | { type: 'grant-applied'; applied: ChangeRequest; dueAt?: number }
  /** Extend or Undo: an open one of this grant (`open`), or whether this click claimed the filing. */
  | { type: 'click-claimed'; open?: string; claimed: boolean }
  /** The service read afresh for an extension or an undo. */
  /** `failed`: ClickHouse Cloud could not be read (the service is then unknown, not gone). */
  | { type: 'follow-on-read'; service: ServiceRecord | undefined; failed?: CloudApiError }
  | { type: 'follow-on-filed'; outcome: FollowOnOutcome };

/** Why a request was withdrawn or auto-approved: written to the audit trail by the runner. */
export type AuditNote =
  | { kind: 'auto-approved'; rules: readonly string[] }
  | { kind: 'withdrawn-unposted' }
  | { kind: 'withdrawn-unrecorded' }
  /** A rejection with the reason its rejecter typed: kept as the outcome, and in the audit. */
  | { kind: 'rejected-because'; reason: string }
  /** Applied at once by someone on the break-glass list, for this reason. */
  | { kind: 'break-glass'; reason: string }
  /** A scheduled request the bot noticed more than the grace after its time (it was down): not applied. */
  | { kind: 'schedule-missed'; dueAt: number; graceMs: number }
  /** A scheduled request's time came: applying it now. */
  | { kind: 'schedule-started' };

export type Effect =
  | { type: 'create' }
  | { type: 'post-request' }
  | { type: 'record-message-ts'; ts: string; approvalTs?: string }
  | { type: 'check-policy'; decision: Decision; userId: string }
  /** `scheduleAt`: a scheduled request; the last approval moves it to "scheduled" (not "applying") to wait for that time. */
  | { type: 'add-approval'; approverId: string; at: number; counts: number[]; scheduleAt?: number }
  | {
      type: 'transition';
      from: readonly ChangeRequest['status'][];
      to: ChangeRequest['status'];
      actorId: string;
      audit: AuditAction;
      outcome?: FlowOutcome;
      note?: AuditNote;
      /** Grant this process the apply lease in the same step (to: applying). */
      claim?: true;
      /** Leaving applying: only while this process's lease (fence) still holds. */
      holding?: true;
      /** Failure to record changes nothing the flow depends on (a withdrawal). */
      bestEffort?: true;
    }
  /** Start renewing the request's lease (and mark it as applied here); `release` stops it. */
  | { type: 'hold-lease'; request: ChangeRequest }
  | { type: 'release-lease' }
  | { type: 'lock-service' }
  | { type: 'wait'; ms: number; jitter?: true }
  | { type: 'read-service' }
  /** Ask the policy in force what it asks of the request on this record (an extension: of the grant's plan). */
  | { type: 'judge-rules'; service: ServiceRecord }
  /** `service`: as last read or answered; a part's answer is put back into it (the record to post). */
  | { type: 'send'; index: number; operation: Operation; service?: ServiceRecord }
  /** Record the operations confirmed so far (under the lease), so a takeover resumes after them. */
  | { type: 'record-confirmed'; results: OperationResult[] }
  /**
   * An applied break-glass change is reviewed after the fact: file its review (CR-…-B) unless it
   * was filed already (by another replica, or before a restart: the bot files owed ones at start).
   */
  | { type: 'file-review'; original: ChangeRequest }
  // Temporary changes and Undo (grant.ts).
  | { type: 'check-may-act'; userId: string }
  | { type: 'read-revert' }
  /** Read the service afresh and the changes applied to it since the grant. */
  | { type: 'read-for-revert' }
  /** Store the revert attempt unless another replica did, post it in the grant's thread, read it back. */
  | { type: 'file-revert'; candidate: ChangeRequest }
  /** Apply a pending revert attempt through the flow (no approval), then read where the reverts stand. */
  | { type: 'apply-revert'; revert: ChangeRequest; actorId: string }
  /** Record a revert attempt with nothing to send as such (it found everything already changed). */
  | { type: 'settle-unsent-revert'; revert: ChangeRequest; actorId: string }
  /** The grant is done with: its revert and reminder are dropped. */
  | { type: 'forget-revert'; originalId: string }
  /** Look at the grant's revert again this much later. */
  | { type: 'postpone-revert'; originalId: string; ms: number }
  /** Take Extend and Revert now off the grant's reminder: it is over (see `revertId`). */
  | { type: 'close-reminder'; originalId: string; revertId: string }
  /** Say in the grant's thread when the bot reverts it (after it or an extension of it was applied). */
  | { type: 'announce-revert'; applied: ChangeRequest; dueAt: number }
  /** A revert is due but the grant's record is gone: counted (a metric) besides the log line. */
  | { type: 'count-missing-record'; originalId: string }
  /** Extend or Undo: find an open one of this grant, else claim filing it (one per flood of clicks). */
  | { type: 'claim-click'; action: 'extend' | 'undo' }
  | { type: 'release-click'; action: 'extend' | 'undo' }
  | { type: 'read-for-follow-on'; userId: string }
  /** File the extension or undo as a request of its own, approved like any other. */
  | {
      type: 'file-follow-on';
      action: 'extend' | 'undo';
      plan: ChangePlan;
      userId: string;
      service: ServiceRecord;
      given?: Justification;
    }
  /** Show the request in its message (the runner re-reads it after a status that is not final). */
  | { type: 'show'; request: ChangeRequest }
  | { type: 'post-result'; request: ChangeRequest; service: ServiceRecord }
  /** The API confirmed an operation after another replica recorded the request: correct it if it said otherwise. */
  | { type: 'post-correction'; apiRequestId?: string }
  | { type: 'follow-up'; request: ChangeRequest }
  | { type: 'log'; level: 'info' | 'warn' | 'error'; fact: LogFact }
  /**
   * Tell the requester directly what became of their request (a revert: the original's requester).
   * Never asks anything back: a message that cannot be delivered changes nothing in the flow.
   */
  | { type: 'tell-requester'; request: ChangeRequest; news: RequesterNews }
  | { type: 'reply'; reply: FlowReply };

/** Effects about a grant (core/approval/grant.ts) that answer with an event. */
const GRANT_ASKING_EFFECTS = [
  'check-may-act',
  'read-revert',
  'read-for-revert',
  'file-revert',
  'apply-revert',
  'settle-unsent-revert',
  'claim-click',
  'read-for-follow-on',
  'file-follow-on',
] as const satisfies ReadonlyArray<Effect['type']>;

/** Every effect about a grant: those that ask, and those that only act. The runner sends them to GrantIo. */
export const GRANT_EFFECTS = [
  ...GRANT_ASKING_EFFECTS,
  'forget-revert',
  'postpone-revert',
  'close-reminder',
  'announce-revert',
  'count-missing-record',
  'release-click',
] as const satisfies ReadonlyArray<Effect['type']>;

/** Effects that answer with an event; a step asks at most one, last. */
export const ASKING_EFFECTS = [
  'create',
  'post-request',
  'record-message-ts',
  'check-policy',
  'add-approval',
  'transition',
  'lock-service',
  'wait',
  'read-service',
  'judge-rules',
  'send',
  'record-confirmed',
  ...GRANT_ASKING_EFFECTS,
] as const satisfies ReadonlyArray<Effect['type']>;

export type LogFact =
  | { kind: 'not-posted' }
  | { kind: 'revert-record-missing'; originalId: string }
  | { kind: 'revert-gave-up'; attempts: number; lastId: string; lastMessage?: string }
  | { kind: 'revert-failed'; originalId: string; revertId: string; retryInMs: number; message?: string }
  | { kind: 'revert-not-yet'; failures: number; retryInMs: number; problems: string }
  | { kind: 'message-ts-not-recorded' }
  | { kind: 'taken-over-before-recorded'; status: 'applied' | 'failed'; apiRequestId?: string }
  | { kind: 'outcome-not-recorded'; status: 'applied' | 'failed' };

/** Recorded as the request's outcome; core/render/approval.ts words it. */
export type FlowOutcome =
  | {
      status: 'applied';
      /** `reviewed`: a break-glass review, which sends nothing, was marked done. */
      audit: 'applied' | 'reviewed';
      note?: 'confirmed-by-reread' | 'settled-shows' | 'resumed';
      apiRequestId?: string;
      results?: OperationResult[];
      service?: ServiceRecord;
    }
  | { status: 'failed'; audit: 'failed' | 'stale'; failure: Failure; results?: OperationResult[] };

export type Failure =
  | { kind: 'lock-timeout'; waitedMs: number }
  | { kind: 'read-before-apply'; error: CloudApiError | undefined; organizationGone?: string }
  /** `what`: the target when it is not a service ("member", "API key"). */
  | { kind: 'service-gone'; what?: string }
  | { kind: 'stale'; labels: string[]; what?: string }
  /** The record the change would apply to now falls under a deny rule. */
  | { kind: 'denied-now'; rule: string; text: string }
  /** The record now matches rules that ask more than the request was approved under. */
  | { kind: 'rules-grew'; rules: string[] }
  /** The record now matches a rule asking for a reason or a ticket the request was not given. */
  | { kind: 'unjustified-now'; lacking: Unjustified }
  /** A freeze of one of its rules began before it could be applied. */
  | { kind: 'frozen'; rule: string; reason: string; until: number }
  /** Asked inside its rules' maintenance window, approved after it closed. */
  | { kind: 'outside-window'; rules: string[]; opensAt?: number }
  | { kind: 'api-refused'; error: CloudApiError | undefined }
  | { kind: 'unknown-outcome'; error: CloudApiError | undefined }
  | { kind: 'not-shown'; error: CloudApiError | undefined }
  | { kind: 'stopped-before-sending' }
  | { kind: 'settled-not-shown' }
  | { kind: 'settled-read-failed'; error: CloudApiError | undefined };

/** What the requester is told directly as their request moves; core/render/requester.ts words it. */
export type RequesterNews =
  | { kind: 'approved'; by: string }
  | { kind: 'applied' }
  | { kind: 'failed' }
  | { kind: 'rejected'; by: string; reason?: string }
  /** Someone else (who may approve it) called off the requester's approved scheduled change. */
  | { kind: 'cancelled'; by: string }
  | { kind: 'expired' }
  /** A revert the bot filed took back the original's temporary change. */
  | { kind: 'reverted' };

/** What the person who clicked or asked is told; undefined (no reply effect) means the message says it. */
export type FlowReply =
  | { kind: 'filed'; request: ChangeRequest; autoRules?: readonly string[] }
  | { kind: 'not-posted'; notInChannel: boolean; channelId?: string }
  | { kind: 'not-recorded' }
  | { kind: 'gone-long-ago' }
  | { kind: 'gone' }
  | { kind: 'already-decided'; request: ChangeRequest }
  | { kind: 'revert-needs-no-decision' }
  /** A break-glass review is only marked reviewed: nobody rejects or cancels what already happened. */
  | { kind: 'review-only' }
  /** An approval of a change that asks for its target's name, without it (or with another). */
  | { kind: 'name-not-typed'; name: string }
  | { kind: 'not-allowed'; reason: string }
  | { kind: 'approval-not-counted'; request: ChangeRequest; reason: 'already-approved' | 'not-needed' }
  | { kind: 'approval-recorded'; request: ChangeRequest }
  /** The last approval was given to a scheduled request: it applies at its time. */
  | { kind: 'scheduled'; request: ChangeRequest }
  | { kind: 'expired' }
  | { kind: 'lost-before-sending' }
  | { kind: 'lost-after-sending' }
  | { kind: 'outcome-not-recorded' }
  | GrantReply;

/** The grant's actions in one word each: the buttons Revert now, Extend and Undo. */
export type GrantAction = 'revert-now' | 'extend' | 'undo';

/** The latest attempt at reverting a grant (CR-X-R, CR-X-R2, …) and its number (1 when none was filed). */
export interface RevertAttempt {
  attempt: number;
  revert: ChangeRequest | undefined;
}

/** What became of filing an extension or an undo (the flow's own outcome of filing a request). */
export type FollowOnOutcome =
  | { ok: true; request: ChangeRequest }
  | { ok: false; problems: PlanProblem[] }
  | { ok: false; text: string; asks?: readonly RuleAsks[] };

/** A rule that asks a reason or a ticket of the change: what the form of a click shows and checks. */
export interface RuleAsks {
  rule: string;
  require: Requires;
}

/** What the person who clicked Revert now, Extend or Undo is told; core/render/temporary.ts words it. */
export type GrantReply =
  | { kind: 'revert-record-missing'; originalId: string }
  | { kind: 'not-temporary' }
  | { kind: 'grant-inactive' }
  | { kind: 'revert-service-gone' }
  | { kind: 'reverting-now'; revertId: string }
  | { kind: 'already-reverted'; revertId: string }
  | { kind: 'undo-already-reverted'; revertId: string }
  | { kind: 'revert-gave-up'; originalId: string; attempts: number; lastId: string }
  | { kind: 'revert-not-yet'; originalId: string; problems: string }
  | { kind: 'nothing-left-to-revert'; found: readonly string[] }
  | { kind: 'reverted-now'; originalId: string }
  | { kind: 'revert-failed-retrying'; originalId: string; message?: string }
  | { kind: 'grant-not-allowed'; action: GrantAction; reason: string }
  | { kind: 'extension-inactive' }
  | { kind: 'follow-on-open'; action: 'extend' | 'undo'; originalId: string; openId: string }
  | { kind: 'follow-on-being-filed'; action: 'extend' | 'undo'; originalId: string; inThread: boolean }
  | { kind: 'undo-not-applied' }
  /** A rule asks a reason or ticket of the extension or undo that the grant did not carry: the click opens a form. */
  | {
      kind: 'follow-on-unjustified';
      action: 'extend' | 'undo';
      originalId: string;
      text: string;
      asks: readonly RuleAsks[];
    }
  | { kind: 'follow-on-service-gone'; action: 'extend' | 'undo' }
  | { kind: 'follow-on-read-failed'; action: 'extend' | 'undo'; error: CloudApiError }
  | { kind: 'nothing-left-to-undo'; originalId: string; leftAlone: readonly string[] }
  | {
      kind: 'follow-on-filed';
      outcome: FollowOnOutcome;
      where: 'the thread' | 'the channel';
      /** Undo: the parts already undone, left out of it. */
      leftAlone?: readonly string[];
    };

export type StepResult =
  | { state: FlowState; effects: Effect[] }
  /** The event does not apply in this state: nothing changes, and the reason says why. */
  | { state: FlowState; effects: []; ignored: string };
