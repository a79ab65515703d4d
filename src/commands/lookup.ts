import { resolutionText } from '../core/render/errors.js';
import { resolveService } from '../core/service/resolve.js';
import type { ServiceRecord } from '../core/service/schema.js';
import type { BotServices } from './context.js';
import type { OrganizationTargetType } from '../core/access/target.js';
import { findKey, findMember, keyRecord, memberRecord } from '../core/change/target-records.js';
import { esc } from '../core/render/mrkdwn.js';

/** `readAt`: when the API answered the list the service was found in (a cached list's `fetchedAt`). */
export type Lookup = { ok: true; service: ServiceRecord; readAt: number } | { ok: false; text: string };

/** Finds SERVICE among the organization's services (a cached read is fine for this), for `person`. */
export async function lookupService(services: BotServices, query: string, person: string): Promise<Lookup> {
  const list = await services.cloud.listServices([], { person, priority: 'command' });
  const resolution = resolveService(list.services, query);
  return resolution.ok
    ? { ok: true, service: resolution.service, readAt: list.fetchedAt }
    : { ok: false, text: resolutionText(resolution) };
}

/**
 * Finds what a change command names: a service, or (for `grant`, `key disable`…) a member by email
 * or an API key by name, id or last four characters, read afresh as the record the change plans on.
 */
export async function lookupTarget(
  services: BotServices,
  type: OrganizationTargetType | undefined,
  query: string,
  person: string,
): Promise<Lookup> {
  if (type === undefined) return lookupService(services, query, person);
  const options = { person, priority: 'command' as const };
  const readAt = Date.now();
  if (type === 'member') {
    if (/^<@[UW]/.test(query)) return { ok: false, text: `Give the member's email, like ana@example.com.` };
    const [members, roles] = await Promise.all([
      services.cloud.listMembers(options),
      services.cloud.listRoles(options),
    ]);
    const found = findMember(members, query);
    return found.ok
      ? { ok: true, service: memberRecord(found.value, roles), readAt }
      : { ok: false, text: esc(found.text) };
  }
  const [list, roles] = await Promise.all([services.cloud.listApiKeys(options), services.cloud.listRoles(options)]);
  const found = findKey(list.keys, query);
  return found.ok
    ? { ok: true, service: keyRecord(found.value, roles, list.ownKeyId), readAt }
    : { ok: false, text: esc(found.text) };
}
