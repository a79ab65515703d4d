/**
 * A small pure world for the decision function: a model of the store's atomic steps (with leases
 * and fencing), a service that records which operations landed, and replicas that each run the
 * step and wait on one asked effect at a time. The property test drives it with random schedules.
 */
import { step } from './checked-step.js';
import {
  ASKING_EFFECTS,
  type Effect,
  type FlowContext,
  type FlowEvent,
  type FlowState,
} from '../../../src/core/approval/types.js';
import {
  FINAL_STATUSES,
  type ChangeRequest,
  type ChangeStatus,
  type Operation,
} from '../../../src/core/change/types.js';
import { CloudApiError } from '../../../src/core/service/api-error.js';
import type { ServiceRecord } from '../../../src/core/service/schema.js';
import { SERVICE_ID, service } from '../fixtures.js';

export const CONTEXT: FlowContext = {
  now: 1_000,
  clock: 1_000,
  leaseMs: 20_000,
  lockWaitMs: 120_000,
  recheckDelaysMs: [2_000, 4_000],
  updateTimeoutMs: 15_000,
};

/** Two operations on the update endpoint: a rename, then a release channel switch. */
export const OPERATIONS: Operation[] = [
  { endpoint: 'update', body: { name: 'orders-next' } },
  { endpoint: 'update', body: { releaseChannel: 'fast' } },
];

export function pendingRequest(operations: Operation[] = OPERATIONS): ChangeRequest {
  return {
    id: 'CR-WORLD',
    channelId: 'C1',
    requesterId: 'U-REQ',
    createdAt: 0,
    expiresAt: 10_000_000,
    status: 'pending',
    requirements: [{ rule: 'default', approvals: 1, approvers: [], reasons: [], selfApproval: false }],
    plan: {
      serviceId: SERVICE_ID,
      serviceName: 'orders-prod',
      update: { name: 'orders-next', releaseChannel: 'fast' },
      operations,
      changes: [
        { field: 'name', label: 'Name', before: 'orders-prod', after: 'orders-next' },
        { field: 'releaseChannel', label: 'Release channel', before: 'default', after: 'fast' },
      ],
      warnings: [],
      before: { name: 'orders-prod', releaseChannel: 'default' },
    },
  };
}

/** How the world answers a send: the dice the property test throws. */
export type SendDice = 'answered' | 'refused' | 'timeout-landed' | 'timeout-lost' | 'timeout-late';
export type ReadDice = 'read' | 'read-fails';

interface Replica {
  name: string;
  state: FlowState;
  asked: Effect | undefined;
  /** The fence of the lease this replica holds while applying. */
  fence: number | undefined;
  history: FlowEvent[];
}

export class World {
  stored: ChangeRequest;
  /** How many times each operation landed on the service. */
  landed: number[];
  sends: number[] = [];
  /** Operations that timed out but land later (when time passes: the next wait). */
  late: number[] = [];
  finalSeen: ChangeStatus | undefined;
  /** Violations found while running, in words. */
  problems: string[] = [];
  readonly replicas: Replica[];
  /** The app's clock as the replicas see it: a scheduled request's time comes when `due` moves it. */
  context: FlowContext = { ...CONTEXT };

  constructor(operations: Operation[] = OPERATIONS, names: string[] = ['A', 'B'], options: { applyAt?: number } = {}) {
    this.stored = pendingRequest(operations);
    if (options.applyAt !== undefined)
      this.stored = { ...this.stored, applyAt: options.applyAt, expiresAt: options.applyAt };
    this.landed = operations.map(() => 0);
    this.replicas = names.map((name) => ({
      name,
      state: { request: undefined, work: { phase: 'done' } },
      asked: undefined,
      fence: undefined,
      history: [],
    }));
  }

  service(): ServiceRecord {
    const [rename, channel] = this.landed;
    return service({
      name: (rename ?? 0) > 0 ? 'orders-next' : 'orders-prod',
      releaseChannel: (channel ?? 0) > 0 ? 'fast' : 'default',
    });
  }

  idle(replica: Replica): boolean {
    return replica.asked === undefined;
  }

  /** A person clicks Approve through this replica (it reads the request first, as the runner does). */
  click(index: number, userId: string): void {
    const replica = this.replicas[index];
    if (!replica || !this.idle(replica)) return;
    replica.state = { request: structuredClone(this.stored), work: { phase: 'idle' } };
    replica.fence = undefined;
    this.feed(replica, { type: 'clicked', decision: 'approve', userId });
  }

  /** The requester clicks Cancel through this replica. */
  cancel(index: number): void {
    const replica = this.replicas[index];
    if (!replica || !this.idle(replica)) return;
    replica.state = { request: structuredClone(this.stored), work: { phase: 'idle' } };
    replica.fence = undefined;
    this.feed(replica, { type: 'clicked', decision: 'cancel', userId: this.stored.requesterId });
  }

  /**
   * The due-items tick of this replica finds the scheduled request due (read first, as the
   * runner does): at its time, or, `late`, past the grace (the bot was down).
   */
  due(index: number, late: boolean): void {
    const replica = this.replicas[index];
    const applyAt = this.stored.applyAt;
    if (!replica || !this.idle(replica) || applyAt === undefined) return;
    this.context = { ...this.context, now: Math.max(this.context.now, applyAt + (late ? WORLD_GRACE_MS + 1 : 0)) };
    replica.state = { request: structuredClone(this.stored), work: { phase: 'idle' } };
    replica.fence = undefined;
    this.feed(replica, { type: 'schedule-due', actorId: 'the bot', graceMs: WORLD_GRACE_MS });
  }

  /** The replica applying it froze: its lease ran out and this replica takes it over. */
  takeOver(index: number): void {
    const replica = this.replicas[index];
    if (!replica || !this.idle(replica) || this.stored.status !== 'applying' || !this.stored.lease) return;
    const lease = this.stored.lease;
    this.stored = { ...this.stored, lease: { ...lease, owner: replica.name, fence: lease.fence + 1, takenAt: 5_000 } };
    replica.fence = lease.fence + 1;
    replica.state = { request: undefined, work: { phase: 'idle' } };
    this.feed(replica, { type: 'taken-over', request: structuredClone(this.stored) });
  }

  /** The replica's asked effect answers (with the dice), and the answer is fed back. */
  answer(index: number, send: SendDice, read: ReadDice): void {
    const replica = this.replicas[index];
    if (!replica?.asked) return;
    const effect = replica.asked;
    replica.asked = undefined;
    const event = this.perform(replica, effect, send, read);
    if (event) this.feed(replica, event);
  }

  /**
   * For the harness's own sanity check: the replica's asked transition is answered "done" by a
   * store that did not record it (what a lying store would do).
   */
  answerWithoutRecording(index: number): void {
    const replica = this.replicas[index];
    const effect = replica?.asked;
    if (!replica || effect?.type !== 'transition') return;
    replica.asked = undefined;
    const request = { ...structuredClone(this.stored), status: effect.to };
    this.feed(replica, { type: 'transitioned', result: { ok: true, request } });
  }

  /** An event this replica already received arrives again (a duplicate, out of order). */
  replay(index: number, pick: number): void {
    const replica = this.replicas[index];
    if (!replica || replica.history.length === 0) return;
    // Mostly one of the last few events (duplicates arrive soon after the original), sometimes any.
    const recent = Math.min(replica.history.length, pick % 2 === 0 ? 4 : replica.history.length);
    const event = replica.history[replica.history.length - 1 - (Math.floor(pick / 2) % recent)];
    // Delivered while the replica waits on an effect too: if the step acts on it, the effect it
    // waited on is abandoned (its answer never arrives), as when events cross.
    if (event) this.feed(replica, event, true);
  }

  private feed(replica: Replica, event: FlowEvent, replayed = false): void {
    if (!replayed) replica.history.push(event);
    const stepped = step(replica.state, event, this.context);
    replica.state = stepped.state;
    for (const effect of stepped.effects) {
      if (effect.type === 'transition' && effect.from.some((s) => FINAL_STATUSES.includes(s)))
        this.problems.push(`a transition from a final status was asked: ${effect.from.join(',')}`);
      // Issue 22, point 8: what the channel says is never ahead of what the store says.
      if ((effect.type === 'show' || effect.type === 'post-result') && told(effect.request.status, this.stored.status))
        this.problems.push(`the channel was told ${effect.request.status} while the store had ${this.stored.status}`);
      if (effect.type === 'hold-lease') replica.fence = effect.request.lease?.fence;
      if (effect.type === 'release-lease') replica.fence = undefined;
      if (isAsking(effect)) replica.asked = effect;
    }
  }

  private holds(replica: Replica): boolean {
    const lease = this.stored.lease;
    return this.stored.status === 'applying' && lease?.owner === replica.name && lease.fence === replica.fence;
  }

  private perform(replica: Replica, effect: Effect, send: SendDice, read: ReadDice): FlowEvent | undefined {
    switch (effect.type) {
      case 'check-policy':
        return { type: 'policy-answered', verdict: { allowed: true } };
      case 'add-approval': {
        if (this.stored.status !== 'pending')
          return {
            type: 'approval-recorded',
            result: { ok: false, reason: 'conflict', request: structuredClone(this.stored) },
          };
        if (this.stored.approvals?.some((a) => a.userId === effect.approverId))
          return {
            type: 'approval-recorded',
            result: { ok: false, reason: 'already-approved', request: structuredClone(this.stored) },
          };
        if (effect.scheduleAt !== undefined) {
          // The store's approval that completes a scheduled request: "scheduled", no lease.
          if (effect.scheduleAt !== this.stored.applyAt) this.problems.push('scheduled at another time than asked');
          this.stored = {
            ...this.stored,
            status: 'scheduled',
            approvals: [{ userId: effect.approverId, at: effect.at, counts: effect.counts }],
            decidedBy: effect.approverId,
          };
          return {
            type: 'approval-recorded',
            result: { ok: true, complete: true, request: structuredClone(this.stored) },
          };
        }
        if (this.stored.applyAt !== undefined && this.stored.applyAt > this.context.now)
          this.problems.push('a scheduled request was claimed before its time');
        const fence = (this.stored.lease?.fence ?? 0) + 1;
        this.stored = {
          ...this.stored,
          status: 'applying',
          approvals: [{ userId: effect.approverId, at: effect.at, counts: effect.counts }],
          decidedBy: effect.approverId,
          lease: { owner: replica.name, fence, until: 99_999, sending: false },
        };
        return {
          type: 'approval-recorded',
          result: { ok: true, complete: true, request: structuredClone(this.stored) },
        };
      }
      case 'transition':
        return { type: 'transitioned', result: this.transition(replica, effect) };
      case 'lock-service':
        return { type: 'lock-answered', attempt: this.holds(replica) ? 'acquired' : 'lost', leaseLost: false };
      case 'wait':
        // Time passes: an operation that timed out but was still on its way lands now.
        this.late.forEach((index) => (this.landed[index] = (this.landed[index] ?? 0) + 1));
        this.late = [];
        return { type: 'waited' };
      case 'read-service':
        return read === 'read-fails'
          ? { type: 'read-failed', error: new CloudApiError('timeout', 'timed out') }
          : { type: 'service-read', service: this.service() };
      case 'judge-rules':
        // The rules in force ask what they asked when the request was made.
        return { type: 'rules-judged', rules: { kind: 'approve', requirements: this.stored.requirements ?? [] } };
      case 'send':
        return this.send(replica, effect.index, send);
      case 'record-confirmed': {
        if (!this.holds(replica)) return { type: 'confirmed-recorded', result: 'lost' };
        effect.results.forEach((result) => {
          if (result.status === 'applied' && (this.landed[result.index] ?? 0) === 0)
            this.problems.push(`operation ${result.index} was recorded as confirmed but never landed`);
        });
        this.stored = { ...this.stored, confirmed: structuredClone(effect.results) };
        return { type: 'confirmed-recorded', result: 'recorded' };
      }
      default:
        return undefined;
    }
  }

  private send(replica: Replica, index: number, dice: SendDice): FlowEvent {
    // The store's confirm-before-send: only the lease's holder may send.
    if (!this.holds(replica)) return { type: 'send-refused', index };
    this.stored = { ...this.stored, lease: { ...this.stored.lease!, sending: true, sentAt: 4_000 } };
    this.sends[index] = (this.sends[index] ?? 0) + 1;
    if (dice === 'answered' || dice === 'timeout-landed') this.landed[index] = (this.landed[index] ?? 0) + 1;
    if (dice === 'answered')
      return { type: 'operation-answered', index, apiRequestId: `req-${index}`, service: this.service() };
    if (dice === 'refused')
      return { type: 'operation-failed', index, error: new CloudApiError('http', 'bad', { status: 400 }) };
    return { type: 'operation-failed', index, error: new CloudApiError('timeout', 'timed out') };
  }

  private transition(replica: Replica, effect: Extract<Effect, { type: 'transition' }>) {
    const current = structuredClone(this.stored);
    if (effect.holding && !this.holds(replica))
      return { ok: false as const, reason: 'lost' as const, request: current };
    if (!effect.from.includes(this.stored.status))
      return { ok: false as const, reason: 'conflict' as const, request: current };
    if (this.finalSeen) this.problems.push(`final status ${this.finalSeen} moved to ${effect.to}`);
    if (effect.to === 'applying' && this.stored.applyAt !== undefined && this.stored.applyAt > this.context.now)
      this.problems.push('a scheduled request started before its time');
    if (effect.to === 'applied' && this.landed.some((count) => count === 0))
      this.problems.push(`recorded applied while operations ${JSON.stringify(this.landed)} had landed`);
    const lease = effect.claim
      ? { owner: replica.name, fence: (this.stored.lease?.fence ?? 0) + 1, until: 99_999, sending: false }
      : this.stored.lease;
    this.stored = { ...this.stored, status: effect.to, ...(lease && effect.to === 'applying' ? { lease } : {}) };
    if (FINAL_STATUSES.includes(effect.to)) this.finalSeen = effect.to;
    return { ok: true as const, request: structuredClone(this.stored) };
  }

  /** Problems after the run, including what can only be judged at the end. */
  verdict(): string[] {
    const problems = [...this.problems];
    this.landed.forEach((count, index) => {
      if (count > 1) problems.push(`operation ${index} landed ${count} times`);
    });
    // Cancelled or expired before it started: nothing of it may have reached the service.
    if ((this.finalSeen === 'cancelled' || this.finalSeen === 'expired') && this.landed.some((count) => count > 0))
      problems.push(`${this.finalSeen}, yet operations ${JSON.stringify(this.landed)} landed`);
    return problems;
  }
}

/** A final status shown to the channel that the store does not hold (yet). */
function told(shown: ChangeRequest['status'], stored: ChangeRequest['status']): boolean {
  return FINAL_STATUSES.includes(shown) && shown !== stored;
}

function isAsking(effect: Effect): boolean {
  return (ASKING_EFFECTS as readonly string[]).includes(effect.type);
}

/** SCHEDULED_GRACE in the world. */
export const WORLD_GRACE_MS = 15 * 60_000;

export const SEND_DICE: SendDice[] = ['answered', 'refused', 'timeout-landed', 'timeout-lost', 'timeout-late'];
