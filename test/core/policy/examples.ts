/** The example policy and small builders for policy tests. */
import { parsePolicy } from '../../../src/core/policy/parse.js';
import type { Policy, RequestFacts, ServiceSide } from '../../../src/core/policy/types.js';

export const EXAMPLE_POLICY = `rules:
  - name: production needs two DBAs
    match:
      tags: { env: prod }          # every listed tag present with that value; "*" = any value
    approvals: 2                   # distinct people; the requester never counts
    approvers: [S0DBAS, U0APP1]    # user groups or users who count for this rule; default APPROVERS
  - name: never open production to the internet
    match: { tags: { env: prod }, risks: [world-open] }
    deny: Production is never opened to the whole internet; attach a private endpoint instead.
  - name: developers add their own IPs to dev services
    match: { tags: { env: dev }, changes: [ip-access] }
    approvals: 0
`;

export function mustParse(text: string): Policy {
  const parsed = parsePolicy(text);
  if (!parsed.ok) throw new Error(`policy did not parse: ${parsed.problems.join('; ')}`);
  return parsed.policy;
}

export function side(tags: Record<string, string> = {}, name = 'orders', id = 'svc-1'): ServiceSide {
  return { id, name, tags: new Map(Object.entries(tags)) };
}

export function facts(
  overrides: Partial<RequestFacts> & { tags?: Record<string, string>; tagsAfter?: Record<string, string> } = {},
): RequestFacts {
  const { tags, tagsAfter, ...rest } = overrides;
  const before = side(tags);
  return { before, after: tagsAfter ? side(tagsAfter) : before, changes: ['name'], risks: [], ...rest };
}

export const DEFAULTS = { approvers: ['U0GLOBAL'], allowSelfApproval: false } as const;
