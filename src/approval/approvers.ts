/**
 * Who may approve or reject a change request. APPROVERS lists user ids (U..., or W... on
 * Enterprise Grid) and user group ids (S...). Groups are read from Slack at the moment of
 * approval, so someone removed from a group cannot approve any more; rejections may use a recent
 * read. With no APPROVERS, anyone in the channel but the requester may.
 */
import type { ChangeRequest } from '../core/change/types.js';
import type { ApprovalPolicy, Decision, Verdict } from '../ports/approval-policy.js';
import { MessengerError, type Messenger } from '../ports/messenger.js';

export interface ApproverPolicyOptions {
  approvers: readonly string[];
  allowSelfApproval: boolean;
  messenger: Pick<Messenger, 'groupMembers'>;
  groupCacheMs?: number;
  now?: () => number;
}

export class ApproverPolicy implements ApprovalPolicy {
  private readonly groups = new Map<string, { members: Promise<Set<string>>; fetchedAt: number }>();
  private readonly now: () => number;

  constructor(private readonly options: ApproverPolicyOptions) {
    this.now = options.now ?? Date.now;
  }

  async check(decision: Decision, userId: string, request: ChangeRequest): Promise<Verdict> {
    if (decision === 'approve') return this.mayApprove(userId, request);
    if (decision === 'reject') return this.mayReject(userId, request);
    return this.mayCancel(userId, request);
  }

  async mayApprove(userId: string, request: ChangeRequest): Promise<Verdict> {
    if (userId === request.requesterId && !this.options.allowSelfApproval) {
      return { allowed: false, reason: 'You asked for this change, so someone else has to approve it.' };
    }
    return this.mayDecide(userId, 'approve', { fresh: true });
  }

  async mayReject(userId: string, request: ChangeRequest): Promise<Verdict> {
    if (userId === request.requesterId) {
      return { allowed: false, reason: 'This is your own request: use Cancel to withdraw it.' };
    }
    return this.mayDecide(userId, 'reject', { fresh: false });
  }

  mayCancel(userId: string, request: ChangeRequest): Verdict {
    return userId === request.requesterId
      ? { allowed: true }
      : { allowed: false, reason: 'Only the person who asked for this change can cancel it. Approvers can Reject it.' };
  }

  /** One unreadable group does not stop the members of the groups that could be read. */
  private async mayDecide(userId: string, verb: string, read: { fresh: boolean }): Promise<Verdict> {
    const { approvers } = this.options;
    if (approvers.length === 0 || approvers.includes(userId)) return { allowed: true };
    const groups = approvers.filter((id) => id.startsWith('S'));
    const reads = await Promise.allSettled(groups.map((groupId) => this.members(groupId, read.fresh)));
    if (reads.some((r) => r.status === 'fulfilled' && r.value.has(userId))) return { allowed: true };
    const unreadable = groups.flatMap((groupId, i) => {
      const result = reads[i];
      return result?.status === 'rejected' ? [{ groupId, code: result.reason instanceof MessengerError ? result.reason.code : 'no answer' }] : [];
    });
    if (unreadable.length > 0) {
      const which = unreadable.map((u) => `<!subteam^${u.groupId}> (Slack said: ${u.code})`).join(', ');
      return { allowed: false, reason: `You are not in any approver group the bot could read, and it could not check ${which}. Whoever runs the bot should check its usergroups:read scope.` };
    }
    return { allowed: false, reason: `You are not on this bot's list of approvers, so you cannot ${verb} changes. Ask one of them: ${approvers.map(label).join(', ')}.` };
  }

  private members(groupId: string, fresh: boolean): Promise<Set<string>> {
    const ttl = this.options.groupCacheMs ?? 5 * 60_000;
    const cached = this.groups.get(groupId);
    if (!fresh && cached && this.now() - cached.fetchedAt < ttl) return cached.members;
    const members = this.options.messenger.groupMembers(groupId).then(
      (ids) => new Set(ids),
      (error: unknown) => {
        this.groups.delete(groupId); // do not cache a failure
        throw error;
      },
    );
    this.groups.set(groupId, { members, fetchedAt: this.now() });
    return members;
  }
}

const label = (id: string) => (id.startsWith('S') ? `<!subteam^${id}>` : `<@${id}>`);
