import type { ChangeRequest } from '../core/change/types.js';

export type Decision = 'approve' | 'reject' | 'cancel';

export type Verdict = { allowed: true } | { allowed: false; reason: string };

/**
 * Who may decide a change request. It sees the whole request (service, fields, requester), so
 * rules per service, per tag or per field fit here without touching the approval flow.
 * approval/approvers.ts (APPROVERS, user groups, self-approval) is the first implementation.
 */
export interface ApprovalPolicy {
  check(decision: Decision, userId: string, request: ChangeRequest): Promise<Verdict>;
}
