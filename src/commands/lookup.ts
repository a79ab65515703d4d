import { resolutionText } from '../core/render/errors.js';
import { resolveService } from '../core/service/resolve.js';
import type { ServiceRecord } from '../core/service/schema.js';
import type { BotServices } from './context.js';

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
