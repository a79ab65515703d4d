/**
 * Does a rule apply to a request, and why. Every key the rule's match gives must hold; tags and
 * services are checked on the service as it is and as it would be after the change, so taking
 * env=prod off a service is still a production change.
 */
import type { RequestFacts, RuleMatch, ServiceSide } from './types.js';

export const ANY_VALUE = '*';

/** Why the rule matches ("env=prod", "changes ip-access"…), or undefined when it does not. */
export function matchReasons(match: RuleMatch, facts: RequestFacts): string[] | undefined {
  const changes = listed(match.changes, facts.changes);
  const risks = listed(match.risks, facts.risks);
  if (changes === undefined || risks === undefined) return undefined;
  const side = sideReasons(match, facts);
  if (side === undefined) return undefined;
  const reasons = [...side, ...changes.map((kind) => `changes ${kind}`), ...risks.map((risk) => `risk ${risk}`)];
  return reasons.length > 0 ? reasons : ['every request'];
}

function sideReasons(match: RuleMatch, facts: RequestFacts): string[] | undefined {
  const before = serviceReasons(match, facts.before);
  const after = serviceReasons(match, facts.after);
  if (before && after)
    return before.join() === after.join()
      ? before
      : [...before.map((r) => `${r} before the change`), ...after.map((r) => `${r} after it`)];
  if (before) return before.map((r) => `${r} before the change`);
  if (after) return after.map((r) => `${r} after the change`);
  return undefined;
}

/** The tags and services part of a match, on one side of the change. */
export function serviceReasons(match: Pick<RuleMatch, 'tags' | 'services'>, side: ServiceSide): string[] | undefined {
  const reasons: string[] = [];
  for (const [key, wanted] of Object.entries(match.tags ?? {})) {
    const value = side.tags.get(key);
    if (value === undefined || (wanted !== ANY_VALUE && value !== wanted)) return undefined;
    reasons.push(`${key}=${value}`);
  }
  if (match.services !== undefined) {
    const named = match.services.find((s) => s === side.id || s === side.name);
    if (named === undefined) return undefined;
    reasons.push(`service ${named}`);
  }
  return reasons;
}

/** The listed values the request has; [] when the key is not given; undefined when none is present. */
function listed<T>(wanted: readonly T[] | undefined, present: readonly T[]): T[] | undefined {
  if (wanted === undefined) return [];
  const found = wanted.filter((value) => present.includes(value));
  return found.length > 0 ? found : undefined;
}
