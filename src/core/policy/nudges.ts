/**
 * Reminders and escalation of a waiting request, decided from the request and the time alone: a
 * request is bumped every `remind` (the shortest of its unmet rules) up to MAX_REMINDERS times,
 * and a rule with `escalate` still unmet `after` that long lets its `to` people approve too. Both
 * follow from `createdAt`, so nothing but the "already said" claims needs storing, timers survive
 * restarts, and every replica reaches the same answer. Pure.
 */
import type { ChangeRequest } from '../change/types.js';
import { unmet } from './progress.js';
import { DEFAULT_REMIND_MS, type Notify, type Requirement } from './types.js';

/** A request is bumped at most this many times: a reminder storm is impossible by construction. */
export const MAX_REMINDERS = 3;

export type Nudge =
  /** The `round`-th reminder (1-based) is due. */
  | { kind: 'remind'; key: string; round: number }
  /** Requirement `index` escalates to its `to` people. */
  | { kind: 'escalate'; key: string; index: number; requirement: Requirement };

const remindMsOf = (requirement: Requirement) => requirement.remindMs ?? DEFAULT_REMIND_MS;

const escalatedAt = (requirement: Requirement, createdAt: number) =>
  requirement.escalate === undefined ? undefined : createdAt + requirement.escalate.afterMs;

/**
 * The requirements as they stand at `now`: an escalated rule lists its `to` people among its
 * approvers. A rule open to anyone in the channel stays open to anyone.
 */
export function withEscalation(
  requirements: readonly Requirement[],
  createdAt: number,
  now: number,
): readonly Requirement[] {
  return requirements.map((requirement) => {
    const at = escalatedAt(requirement, createdAt);
    if (at === undefined || now < at || requirement.approvers.length === 0) return requirement;
    const to = requirement.escalate?.to ?? [];
    return { ...requirement, approvers: [...new Set([...requirement.approvers, ...to])] };
  });
}

/**
 * What is due for a pending request at `now`: the latest reminder round not yet possible to have
 * been said (only the latest: after a long outage one reminder, not three at once), and each
 * escalation whose time has come. The caller claims each `key` once across replicas.
 */
export function dueNudges(
  request: Pick<ChangeRequest, 'id' | 'status' | 'createdAt' | 'expiresAt' | 'approvals'>,
  requirements: readonly Requirement[],
  now: number,
): Nudge[] {
  if (request.status !== 'pending' || now >= request.expiresAt) return [];
  const open = unmet(requirements, request.approvals ?? []);
  if (open.length === 0) return [];
  const nudges: Nudge[] = [];
  const every = Math.min(...open.map((progress) => remindMsOf(progress.requirement)));
  const round = Math.min(MAX_REMINDERS, Math.floor((now - request.createdAt) / every));
  if (round >= 1) nudges.push({ kind: 'remind', key: `nudge:${request.id}:remind:${round}`, round });
  for (const { index, requirement } of open) {
    const at = escalatedAt(requirement, request.createdAt);
    if (at !== undefined && now >= at)
      nudges.push({ kind: 'escalate', key: `nudge:${request.id}:escalate:${index}`, index, requirement });
  }
  return nudges;
}

/**
 * When the next reminder or escalation of a pending request may be due after `now`, or undefined
 * when nothing more will be said (not pending, every rule met, past its expiry, all reminders
 * said). A later approval can only make it later: a look at the time returned finds nothing due
 * and asks again.
 */
export function nextNudgeAt(
  request: Pick<ChangeRequest, 'status' | 'createdAt' | 'expiresAt' | 'approvals'>,
  requirements: readonly Requirement[],
  now: number,
): number | undefined {
  if (request.status !== 'pending' || now >= request.expiresAt) return undefined;
  const open = unmet(requirements, request.approvals ?? []);
  if (open.length === 0) return undefined;
  const every = Math.min(...open.map((progress) => remindMsOf(progress.requirement)));
  const round = Math.floor((now - request.createdAt) / every);
  const times = round < MAX_REMINDERS ? [request.createdAt + (round + 1) * every] : [];
  for (const { requirement } of open) {
    const at = escalatedAt(requirement, request.createdAt);
    if (at !== undefined && at > now) times.push(at);
  }
  const next = Math.min(...times);
  return next < request.expiresAt ? next : undefined;
}

/** How a rule's approvers hear of a request: as written, else DMs and the thread when it names people. */
export function notifyOf(requirement: Requirement): Notify {
  return requirement.notify ?? (requirement.approvers.length > 0 ? 'both' : 'channel');
}

/**
 * Who is told directly of a waiting request: the approvers (users and user groups, resolved by the
 * caller) of its unmet rules that notify by DM, never the requester. A rule open to anyone in the
 * channel has nobody to message.
 */
export function dmTargets(
  request: Pick<ChangeRequest, 'requesterId' | 'approvals'>,
  requirements: readonly Requirement[],
): string[] {
  const approved = new Set((request.approvals ?? []).map((a) => a.userId));
  const ids = unmet(requirements, request.approvals ?? [])
    .filter(({ requirement }) => notifyOf(requirement) !== 'channel')
    .flatMap(({ requirement }) => requirement.approvers);
  return [...new Set(ids)].filter((id) => id !== request.requesterId && !approved.has(id));
}

/** Whether a reminder is also said in the thread: some unmet rule notifies the channel. */
export function remindsInThread(
  request: Pick<ChangeRequest, 'approvals'>,
  requirements: readonly Requirement[],
): boolean {
  return unmet(requirements, request.approvals ?? []).some(({ requirement }) => notifyOf(requirement) !== 'dm');
}
