/**
 * The services as one channel sees them: its organization's directory narrowed to the services
 * the channel may see, its summaries, and change requests held to the channel's `allow` list and
 * marked with the organization. Every command, form and schedule goes through here first.
 */
import type { Command } from '../core/command/parse.js';
import { commandAllowance, intentKinds, kindsAllowance } from '../core/organization/rules.js';
import type { ChannelRules } from '../core/organization/types.js';
import { costsElsewhereText, notAllowedText, unboundChannelText } from '../core/render/organizations.js';
import { ALLOW_WORDS } from '../core/organization/parse.js';
import type { ChangeRequestService, ChannelScope, ClickOrigin, NewChangeRequest } from '../ports/index.js';
import type { BotServices } from './context.js';

export type ChannelServices = { ok: true; services: BotServices; rules: ChannelRules } | { ok: false; text: string };

export function servicesOfChannel(services: BotServices, channelId: string): ChannelServices {
  const { tenants } = services;
  if (!tenants) return { ok: true, services, rules: {} };
  const scope = tenants.scope(channelId);
  if (!scope) return { ok: false, text: unboundChannelText(channelId) };
  return {
    ok: true,
    rules: scope.rules,
    services: {
      ...services,
      channelRules: scope.rules,
      cloud: scope.directory,
      summaries: scope.summaries,
      changeRequests: guardedRequests(services.changeRequests, scope, tenants.several()),
      // Spend is read for the first organization only (cost/ledger.ts keeps one organization's days).
      ...(scope.organization === tenants.defaultOrganization()
        ? {}
        : { costsUnavailable: costsElsewhereText(scope.organization, tenants.defaultOrganization()) }),
    },
  };
}

/** The sentence refusing a command here, if its word or one of its kinds of change is not allowed. */
export function commandRefusal(rules: ChannelRules, command: Command): string | undefined {
  const allowance = commandAllowance(rules, command);
  return allowance.allowed ? undefined : notAllowedText(allowance.word, rules.allow ?? ALLOW_WORDS);
}

/** New requests keep to the channel's kinds of change and name its organization when there are several. */
function guardedRequests(inner: ChangeRequestService, scope: ChannelScope, several: boolean): ChangeRequestService {
  /** The channel's kinds of change hold for break-glass too: it skips approvals, not the channel's rules. */
  const guarded =
    <T>(ask: (input: NewChangeRequest) => Promise<T>) =>
    (input: NewChangeRequest): Promise<T | { ok: false; text: string }> => {
      const allowance = kindsAllowance(scope.rules, intentKinds(input.intent));
      if (!allowance.allowed)
        return Promise.resolve({ ok: false, text: notAllowedText(allowance.word, scope.rules.allow ?? []) });
      return ask({ ...input, ...(several ? { organization: scope.organization } : {}) });
    };
  return {
    request: guarded((input) => inner.request(input)),
    breakGlass: guarded((input) => inner.breakGlass(input)),
    decide: (decision, id, userId, details) => inner.decide(decision, id, userId, details),
    askAgain: (id, userId, origin) => inner.askAgain(id, userId, origin),
    ...(inner.mayReject
      ? {
          mayReject: (id: string, userId: string, origin: ClickOrigin) =>
            inner.mayReject?.(id, userId, origin) ?? Promise.resolve(false),
        }
      : {}),
  };
}
