/**
 * When a request is filed: the open requests of its service that change the same thing (named by
 * id in its warnings), so nobody learns it only when the second fails as stale. Best effort: a
 * store that does not answer leaves the request without the notice, never unfiled.
 */
import { overlapWarning } from '../core/change/overlap.js';
import type { ChangePlan, ChangeRequest } from '../core/change/types.js';
import type { ChangeStore } from '../ports/index.js';

/** Open requests looked at across channels (reminders read the same list). */
const OPEN_LOOKED_AT = 500;

export async function overlapWarnings(
  store: Pick<ChangeStore, 'listOpen' | 'listPending'>,
  plan: ChangePlan,
  where: { channelId: string; organization?: string | undefined },
  now: number,
): Promise<string[]> {
  try {
    // Waiting anywhere, and this channel's scheduled ones (approved, waiting for their time).
    const [open, here] = await Promise.all([
      store.listOpen(now, OPEN_LOOKED_AT),
      store.listPending(where.channelId, now),
    ]);
    const seen = new Set<string>();
    const earlier = [...open, ...here].filter((request) => {
      if (seen.has(request.id) || !sameService(request, plan, where.organization)) return false;
      seen.add(request.id);
      return true;
    });
    return earlier
      .sort((a, b) => a.createdAt - b.createdAt)
      .map((request) => overlapWarning(plan, request))
      .filter((warning): warning is string => warning !== undefined);
  } catch {
    return [];
  }
}

/** A change of the same service that sends something (an extension or a review sends nothing; reverts are the bot's). */
function sameService(request: ChangeRequest, plan: ChangePlan, organization: string | undefined): boolean {
  if (request.extendOf || request.reviewOf || request.revertOf) return false;
  return request.plan.serviceId === plan.serviceId && (request.organization ?? '') === (organization ?? '');
}
