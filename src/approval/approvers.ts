/**
 * Who may approve or reject a change request. APPROVERS lists user ids (U...) and user group ids
 * (S...); groups are resolved through Slack and cached, since membership changes rarely and a
 * click must be answered fast. With no APPROVERS, anyone in the channel but the requester may.
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
    return this.mayDecide(userId, 'approve');
  }

  async mayReject(userId: string, request: ChangeRequest): Promise<Verdict> {
    if (userId === request.requesterId) {
      return { allowed: false, reason: 'This is your own request: use Cancel to withdraw it.' };
    }
    return this.mayDecide(userId, 'reject');
  }

  mayCancel(userId: string, request: ChangeRequest): Verdict {
    return userId === request.requesterId
      ? { allowed: true }
      : { allowed: false, reason: 'Only the person who asked for this change can cancel it. Approvers can Reject it.' };
  }

  private async mayDecide(userId: string, verb: string): Promise<Verdict> {
    const { approvers } = this.options;
    if (approvers.length === 0 || approvers.includes(userId)) return { allowed: true };
    for (const groupId of approvers.filter((id) => id.startsWith('S'))) {
      let members: Set<string>;
      try {
        members = await this.members(groupId);
      } catch (error) {
        const code = error instanceof MessengerError ? error.code : 'no answer';
        return { allowed: false, reason: `The bot could not check the approver group <!subteam^${groupId}> (Slack said: ${code}). Whoever runs the bot should check its usergroups:read scope.` };
      }
      if (members.has(userId)) return { allowed: true };
    }
    return { allowed: false, reason: `You are not on this bot's list of approvers, so you cannot ${verb} changes. Ask one of them: ${approvers.map(label).join(', ')}.` };
  }

  private members(groupId: string): Promise<Set<string>> {
    const ttl = this.options.groupCacheMs ?? 5 * 60_000;
    const cached = this.groups.get(groupId);
    if (cached && this.now() - cached.fetchedAt < ttl) return cached.members;
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
