/**
 * One entry of the organization's activity log (GET /v1/organizations/{org}/activities): who
 * changed what, when. The official document marks no field required and its list of `type`
 * values grows (53 then more than 100), so every field is optional, an unknown type is kept as
 * text, and an odd entry is left out rather than failing the whole list.
 */
import { z } from 'zod';
import { lenient } from './lenient.js';

export const ACTOR_TYPES = ['user', 'support', 'system', 'api'] as const;
export type ActorType = (typeof ACTOR_TYPES)[number];

/** `actorDetails` is a string in the document (a user's email); some clients have seen an object. */
const ActorDetailsSchema = z.union([z.string(), z.looseObject({ email: lenient(z.string()) })]);

export const ActivitySchema = z.looseObject({
  id: lenient(z.string()),
  createdAt: lenient(z.string()),
  type: lenient(z.string()),
  /** An actor type the bot does not know yet stays unknown rather than failing the entry. */
  actorType: lenient(z.enum(ACTOR_TYPES)),
  actorId: lenient(z.string()),
  actorDetails: lenient(ActorDetailsSchema),
  actorIpAddress: lenient(z.string()),
  organizationId: lenient(z.string()),
  serviceId: lenient(z.string()),
  userAgent: lenient(z.string()),
  /** For key activities (`openapi_key_update`): the key that changed, and how (`state-changed`, …). */
  targetKeyId: lenient(z.string()),
  keyUpdateType: lenient(z.string()),
});
export type Activity = z.infer<typeof ActivitySchema>;

/** Entries that are not even objects are skipped and counted; everything else is kept. */
export function parseActivities(items: readonly unknown[]): { activities: Activity[]; skipped: number } {
  const activities: Activity[] = [];
  for (const item of items) {
    const parsed = ActivitySchema.safeParse(item);
    if (parsed.success) activities.push(parsed.data);
  }
  return { activities, skipped: items.length - activities.length };
}

/** The email (or other detail) the log gives for the actor, if any. */
export function actorDetailsText(activity: Activity): string | undefined {
  const details = activity.actorDetails;
  if (details === undefined) return undefined;
  const text = typeof details === 'string' ? details : details.email;
  return text === undefined || text.trim() === '' ? undefined : text.trim();
}

/** When the activity happened (epoch ms), or undefined when the log did not say or said nonsense. */
export function activityTime(activity: Activity): number | undefined {
  if (activity.createdAt === undefined) return undefined;
  const at = Date.parse(activity.createdAt);
  return Number.isNaN(at) ? undefined : at;
}
