/** The rules a request was made under, in words for the audit trail (plain text, not mrkdwn). */
import type { Requirement } from './types.js';

/** Which rules a request was made under, for the audit: "prod needs two: 2 approvals (env=prod)". */
export function requirementsAuditText(requirements: readonly Requirement[], digest: string | undefined): string {
  const rules = requirements
    .map(
      (r) =>
        `${r.rule}: ${r.approvals === 0 ? 'no approval' : `${r.approvals} approval${r.approvals === 1 ? '' : 's'}`} (${r.reasons.join(', ')})`,
    )
    .join('; ');
  return `Rules: ${rules}.${digest ? ` Policy sha256 ${digest}.` : ''}`;
}
