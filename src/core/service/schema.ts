/**
 * The service record and the update body: the domain's view of a ClickHouse Cloud service, as
 * the two API operations we drive (list services, update a service) carry it. Records are parsed
 * leniently: the real API adds fields at any time and leaves almost every field optional, so an
 * unknown field is kept and a missing or odd one becomes undefined. What we send is parsed
 * strictly, because the API silently ignores some mistakes (a malformed tag filter returns the
 * whole organization) and we would rather refuse than surprise.
 */
import { isIP } from 'node:net';
import { z } from 'zod';

import { lenient } from './lenient.js';
import type { ServiceParts } from './parts.js';
import type { OrganizationTarget } from '../access/target.js';

export { lenient };

/**
 * An id-like field: absent when missing, of another type, or blank. The API sends `""` where it
 * means "none" at times (`"byocId": ""` on a service that is not BYOC), and a blank id must never
 * make a service look BYOC, encrypted or part of a warehouse.
 */
const NonBlankString = z.string().refine((text) => text.trim() !== '');
export const lenientId = lenient(NonBlankString);

export const RELEASE_CHANNELS = ['slow', 'default', 'fast'] as const;
export type ReleaseChannel = (typeof RELEASE_CHANNELS)[number];

export const EndpointSchema = z.looseObject({
  protocol: z.string(),
  host: lenient(z.string()),
  port: lenient(z.number()),
  username: lenient(z.string()),
  enabled: lenient(z.boolean()),
});
export type Endpoint = z.infer<typeof EndpointSchema>;

export const AccessEntrySchema = z.looseObject({
  source: z.string(),
  description: lenient(z.string()),
});
export type AccessEntry = z.infer<typeof AccessEntrySchema>;

export const TagSchema = z.looseObject({ key: z.string(), value: lenient(z.string()) });
export type Tag = z.infer<typeof TagSchema>;

/** Keeps the well-formed items of an array and drops the odd ones, instead of losing the field. */
const lenientArray = <T extends z.ZodType>(item: T) =>
  lenient(
    z.array(z.unknown()).transform((items) =>
      items.flatMap((value) => {
        const parsed = item.safeParse(value);
        return parsed.success ? [parsed.data] : [];
      }),
    ),
  );

/** What is in effect right now while a scaling schedule entry is active (official document). */
export const CurrentScalingSchema = z.looseObject({
  effectiveAutoscalingMode: lenient(z.string()),
  effectiveMinReplicaMemoryGb: lenient(z.number()),
  effectiveMaxReplicaMemoryGb: lenient(z.number()),
  effectiveMinReplicas: lenient(z.number()),
  effectiveMaxReplicas: lenient(z.number()),
  effectiveIdleScaling: lenient(z.boolean()),
  effectiveIdleTimeoutMinutes: lenient(z.number()),
  /** The scaling schedule entry whose values are in effect; absent when none is active. */
  activeEntryId: lenient(z.string()),
});
export type CurrentScaling = z.infer<typeof CurrentScalingSchema>;

export const ServiceRecordSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string().catch(''),
  provider: lenient(z.string()),
  region: lenient(z.string()),
  state: lenient(z.string()),
  tier: lenient(z.string()),
  releaseChannel: lenient(z.string()),
  enableCoreDumps: lenient(z.boolean()),
  clickhouseVersion: lenient(z.string()),
  endpoints: lenientArray(EndpointSchema),
  minTotalMemoryGb: lenient(z.number()),
  maxTotalMemoryGb: lenient(z.number()),
  minReplicaMemoryGb: lenient(z.number()),
  maxReplicaMemoryGb: lenient(z.number()),
  replicaMemoryGb: lenient(z.number()),
  numReplicas: lenient(z.number()),
  minReplicas: lenient(z.number()),
  maxReplicas: lenient(z.number()),
  autoscalingMode: lenient(z.string()),
  currentScaling: lenient(CurrentScalingSchema),
  idleScaling: lenient(z.boolean()),
  idleTimeoutMinutes: lenient(z.number()),
  ipAccessList: lenientArray(AccessEntrySchema),
  createdAt: lenient(z.string()),
  encryptionKey: lenientId,
  encryptionAssumedRoleIdentifier: lenientId,
  iamRole: lenientId,
  privateEndpointIds: lenientArray(NonBlankString),
  availablePrivateEndpointIds: lenientArray(NonBlankString),
  dataWarehouseId: lenientId,
  isPrimary: lenient(z.boolean()),
  isReadonly: lenient(z.boolean()),
  byocId: lenientId,
  hasTransparentDataEncryption: lenient(z.boolean()),
  transparentDataEncryptionKeyId: lenientId,
  encryptionRoleId: lenientId,
  tags: lenientArray(TagSchema),
});
/**
 * A record as the API sent it; `parts` is never from the API: the parts of the service a change
 * touches (its backup configuration…), read alongside it by the middle layer (parts.ts).
 * A change whose target is not a service (a member, an API key) reads it as a record too: its id
 * is `member:…` or `key:…` and `organizationTarget` holds what was read (core/access/target.ts).
 */
export type ServiceRecord = z.infer<typeof ServiceRecordSchema> & {
  parts?: ServiceParts;
  organizationTarget?: OrganizationTarget;
};

// ---------------------------------------------------------------------------------------------
// What we send

/** The official tag alphabet: key 1-128 and value up to 256 characters of [a-zA-Z0-9._-]. */
export const TAG_KEY_MAX = 128;
export const TAG_VALUE_MAX = 256;
/** At most this many tags in each of `tags.add` and `tags.remove` of one update. */
export const TAG_EDITS_MAX = 50;
const TAG_KEY = new RegExp(`^[A-Za-z0-9._-]{1,${TAG_KEY_MAX}}$`);
const TAG_VALUE = new RegExp(`^[A-Za-z0-9._-]{0,${TAG_VALUE_MAX}}$`);
export const isTagKey = (text: string): boolean => TAG_KEY.test(text);
export const isTagValue = (text: string): boolean => TAG_VALUE.test(text);

/** True for an IPv4/IPv6 address or a CIDR block with a prefix length that fits the family. */
export function isIpOrCidr(text: string): boolean {
  const [address, prefix, ...rest] = text.split('/');
  if (rest.length > 0 || address === undefined) return false;
  const family = isIP(address);
  if (family === 0) return false;
  if (prefix === undefined) return true;
  if (!/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (family === 4 ? 32 : 128);
}

export const IpSourceSchema = z
  .string()
  .trim()
  .refine(isIpOrCidr, { message: 'must be an IPv4 or IPv6 address or a CIDR block such as 10.0.0.0/8' });

export const SERVICE_NAME_MAX = 50;
export const ServiceNameSchema = z
  .string()
  .trim()
  .min(1, { message: 'must not be empty' })
  .max(SERVICE_NAME_MAX, { message: `must be at most ${SERVICE_NAME_MAX} characters` })
  .regex(/^[A-Za-z0-9 _-]+$/, {
    message: 'may contain only letters, digits, spaces, hyphens and underscores',
  });

export const IP_DESCRIPTION_MAX = 255;
export const OutgoingAccessEntrySchema = z.strictObject({
  source: IpSourceSchema,
  description: z.string().max(IP_DESCRIPTION_MAX).optional(),
});
export type OutgoingAccessEntry = z.infer<typeof OutgoingAccessEntrySchema>;

const IdSchema = z.string().trim().min(1).max(256);

export const OutgoingTagSchema = z.strictObject({
  key: z
    .string()
    .refine(isTagKey, { message: `a tag key has 1-${TAG_KEY_MAX} letters, digits, dots, hyphens or underscores` }),
  value: z
    .string()
    .refine(isTagValue, {
      message: `a tag value has up to ${TAG_VALUE_MAX} letters, digits, dots, hyphens or underscores`,
    })
    .optional(),
});
export type OutgoingTag = z.infer<typeof OutgoingTagSchema>;

export const ServiceUpdateSchema = z.strictObject({
  name: ServiceNameSchema.optional(),
  ipAccessList: z
    .strictObject({
      add: z.array(OutgoingAccessEntrySchema).optional(),
      remove: z.array(OutgoingAccessEntrySchema).optional(),
    })
    .optional(),
  privateEndpointIds: z
    .strictObject({ add: z.array(IdSchema).optional(), remove: z.array(IdSchema).optional() })
    .optional(),
  releaseChannel: z.enum(RELEASE_CHANNELS).optional(),
  endpoints: z.array(z.strictObject({ protocol: z.literal('mysql'), enabled: z.boolean() })).optional(),
  transparentDataEncryptionKeyId: IdSchema.optional(),
  enableCoreDumps: z.boolean().optional(),
  /** The API runs remove before add; at most 50 of each. */
  tags: z
    .strictObject({
      add: z.array(OutgoingTagSchema).max(TAG_EDITS_MAX).optional(),
      remove: z.array(OutgoingTagSchema).max(TAG_EDITS_MAX).optional(),
    })
    .optional(),
});
export type ServiceUpdate = z.infer<typeof ServiceUpdateSchema>;

// ---------------------------------------------------------------------------------------------
// Capacity and power: PATCH …/replicaScaling and PATCH …/state (never the deprecated …/scaling)

/** Memory of one replica: 8–356 GB, a multiple of 4 (official document). */
export const REPLICA_MEMORY_MIN_GB = 8;
export const REPLICA_MEMORY_MAX_GB = 356;
export const REPLICA_MEMORY_STEP_GB = 4;
/** BYOC services (`byocId` set) accept only these sizes per replica. */
export const BYOC_REPLICA_MEMORY_GB = [48, 116, 172, 232] as const;
/** Replicas: 1–20, for `numReplicas` and for `minReplicas`/`maxReplicas`. */
export const REPLICAS_MIN = 1;
export const REPLICAS_MAX = 20;
/** `idleTimeoutMinutes` is at least 5; the document gives no maximum. */
export const IDLE_TIMEOUT_MIN_MINUTES = 5;

export const AUTOSCALING_MODES = ['vertical', 'horizontal'] as const;
export type AutoscalingMode = (typeof AUTOSCALING_MODES)[number];

export const isReplicaMemoryGb = (value: number): boolean =>
  Number.isInteger(value) &&
  value >= REPLICA_MEMORY_MIN_GB &&
  value <= REPLICA_MEMORY_MAX_GB &&
  value % REPLICA_MEMORY_STEP_GB === 0;
export const isReplicaCount = (value: number): boolean =>
  Number.isInteger(value) && value >= REPLICAS_MIN && value <= REPLICAS_MAX;

const ReplicaMemorySchema = z.number().refine(isReplicaMemoryGb, {
  message: `must be a multiple of ${REPLICA_MEMORY_STEP_GB} from ${REPLICA_MEMORY_MIN_GB} to ${REPLICA_MEMORY_MAX_GB}`,
});
const ReplicaCountSchema = z
  .number()
  .refine(isReplicaCount, { message: `must be a whole number from ${REPLICAS_MIN} to ${REPLICAS_MAX}` });

/**
 * The body of PATCH …/replicaScaling. Every field is optional; the rules the document states for
 * the body alone are checked here (the ones that depend on the service, such as BYOC sizes or the
 * mode, are core/capacity's): `numReplicas` never with `minReplicas`/`maxReplicas`, those two
 * always together, and no minimum above its maximum (undocumented, plainly wrong).
 */
export const ReplicaScalingUpdateSchema = z
  .strictObject({
    minReplicaMemoryGb: ReplicaMemorySchema.optional(),
    maxReplicaMemoryGb: ReplicaMemorySchema.optional(),
    numReplicas: ReplicaCountSchema.optional(),
    minReplicas: ReplicaCountSchema.optional(),
    maxReplicas: ReplicaCountSchema.optional(),
    autoscalingMode: z.enum(AUTOSCALING_MODES).optional(),
    idleScaling: z.boolean().optional(),
    idleTimeoutMinutes: z
      .number()
      .int({ message: 'must be a whole number of minutes' })
      .min(IDLE_TIMEOUT_MIN_MINUTES, { message: `must be at least ${IDLE_TIMEOUT_MIN_MINUTES} minutes` })
      .optional(),
  })
  .superRefine((body, context) => {
    const problem = (path: string, message: string) => context.addIssue({ code: 'custom', path: [path], message });
    if (body.numReplicas !== undefined && (body.minReplicas !== undefined || body.maxReplicas !== undefined)) {
      problem('numReplicas', 'must not be sent together with minReplicas or maxReplicas');
    }
    if ((body.minReplicas === undefined) !== (body.maxReplicas === undefined)) {
      problem(
        body.minReplicas === undefined ? 'minReplicas' : 'maxReplicas',
        'minReplicas and maxReplicas go together',
      );
    }
    if (body.minReplicas !== undefined && body.maxReplicas !== undefined && body.minReplicas > body.maxReplicas) {
      problem('minReplicas', 'must not be above maxReplicas');
    }
    const { minReplicaMemoryGb: low, maxReplicaMemoryGb: high } = body;
    if (low !== undefined && high !== undefined && low > high) {
      problem('minReplicaMemoryGb', 'must not be above maxReplicaMemoryGb');
    }
  });
export type ReplicaScalingUpdate = z.infer<typeof ReplicaScalingUpdateSchema>;

/** The body of PATCH …/state is `{ command }`; `awake` wakes an idle service. */
export const STATE_COMMANDS = ['start', 'stop', 'awake'] as const;
export const StateCommandSchema = z.enum(STATE_COMMANDS);
export type StateCommand = z.infer<typeof StateCommandSchema>;

/**
 * `tag:KEY` (tag present) or `tag:KEY=VALUE` (equality), as the real API understands them. A value
 * outside the tag alphabet (an "=" included) can never match a tag, so it is refused too.
 */
export const TagFilterSchema = z.string().refine(
  (text) => {
    if (!text.startsWith('tag:')) return false;
    const body = text.slice(4);
    const eq = body.indexOf('=');
    if (eq === -1) return isTagKey(body);
    return isTagKey(body.slice(0, eq)) && isTagValue(body.slice(eq + 1));
  },
  { message: 'a tag filter reads tag:KEY or tag:KEY=VALUE (letters, digits, . _ -)' },
);
export type TagFilter = string;

export function parseTagFilter(text: string): { key: string; value?: string } | undefined {
  if (!TagFilterSchema.safeParse(text).success) return undefined;
  const body = text.slice(4);
  const eq = body.indexOf('=');
  return eq === -1 ? { key: body } : { key: body.slice(0, eq), value: body.slice(eq + 1) };
}
