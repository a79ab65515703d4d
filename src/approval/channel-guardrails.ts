/**
 * A channel's guardrails at approval: the request is checked again against its channel's rules as
 * they are now (ORGANIZATIONS_FILE may have been reloaded since it was made): the channel must
 * still be bound to the request's organization, allow every kind of change it makes, and see its
 * service. Who may approve is then the wrapped policy's question.
 */
import { inScope, kindsAllowance, planKinds } from '../core/organization/rules.js';
import {
  approvalNoLongerAllowedText,
  channelUnboundReason,
  kindNotAllowedReason,
  serviceOutOfScopeReason,
} from '../core/render/organizations.js';
import type { ChangeRequest } from '../core/change/types.js';
import type { ApprovalPolicy, ChangeStore, ClickOrigin, Decision, Tenants, Verdict } from '../ports/index.js';

export function channelGuardrails(
  inner: ApprovalPolicy,
  tenants: Pick<Tenants, 'binding' | 'directoryOf' | 'defaultOrganization'>,
  store: Pick<ChangeStore, 'get'>,
): ApprovalPolicy {
  /** An extension changes nothing itself: it is judged by the grant it prolongs, as its rules are. */
  async function judgedPlan(request: ChangeRequest) {
    return (request.extendOf ? (await store.get(request.extendOf))?.plan : undefined) ?? request.plan;
  }

  async function refusal(request: ChangeRequest): Promise<string | undefined> {
    const organization = request.organization ?? tenants.defaultOrganization();
    const binding = tenants.binding(request.channelId);
    if (!binding || binding.organization !== organization) return channelUnboundReason(organization);
    const kinds = kindsAllowance(binding.rules, planKinds(await judgedPlan(request)));
    if (!kinds.allowed) return kindNotAllowedReason(kinds.word);
    // Members and keys belong to the organization: no service scope narrows them.
    if (!binding.rules.services || request.plan.target) return undefined;
    // A cached read is enough: the approval reads the service afresh before sending anything.
    // Asked at a person's click (Ask again, Extend, Undo): in the people's lane of the budget.
    const service = await tenants.directoryOf(organization).getService(request.plan.serviceId, { priority: 'command' });
    if (service && !inScope(binding.rules.services, service)) return serviceOutOfScopeReason(service.name, service.id);
    return undefined;
  }
  return {
    rulesFor: (service, plan, temporary) => inner.rulesFor(service, plan, temporary),
    mayAct: (userId, request, origin) => inner.mayAct(userId, request, origin),
    maySee: (userId, request, origin) => inner.maySee(userId, request, origin),
    followOnRefusal: refusal,
    breakGlassTerms: (userId) => inner.breakGlassTerms(userId),
    reviewRequirement: (requirements) => inner.reviewRequirement(requirements),
    async check(decision: Decision, userId: string, request: ChangeRequest, origin?: ClickOrigin): Promise<Verdict> {
      if (decision === 'approve') {
        // Why the channel may no longer approve it names its service: told only to whoever could see it.
        const seen = await inner.maySee(userId, request, origin);
        if (!seen.allowed) return seen;
        const why = await refusal(request);
        if (why) return { allowed: false, reason: approvalNoLongerAllowedText(why) };
      }
      return inner.check(decision, userId, request, origin);
    },
  };
}
