/**
 * `POST …/services` (create a service; with `backupId`, restore one from a backup) and the rules of
 * `DELETE …/services/{serviceId}`, as pure functions over plain records (official OpenAPI document,
 * `ServicePostRequest` and `ServicePostResponse`; shared/spec/api-facts.md "Restore" and "DELETE").
 * The new service starts `provisioning`; the server settles it into `running` after the
 * organization's transition delay, as it does stops and starts.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { z } from 'zod';
import { applyReplicaScaling, validateScalingBody, type ScalingBody } from './capacity.js';
import type { Outcome, ServiceRecordLike } from './records.js';

const REGIONS = [
  'ap-northeast-1',
  'ap-northeast-2',
  'ap-south-1',
  'ap-southeast-1',
  'ap-southeast-2',
  'ca-central-1',
  'eu-central-1',
  'eu-west-1',
  'eu-west-2',
  'il-central-1',
  'us-east-1',
  'us-east-2',
  'us-west-2',
  'us-east1',
  'us-central1',
  'europe-west2',
  'europe-west4',
  'asia-southeast1',
  'asia-northeast1',
  'eastus',
  'eastus2',
  'westus3',
  'germanywestcentral',
  'centralus',
] as const;

const SCALING_FIELDS = [
  'minReplicaMemoryGb',
  'maxReplicaMemoryGb',
  'numReplicas',
  'minReplicas',
  'maxReplicas',
  'autoscalingMode',
  'idleScaling',
  'idleTimeoutMinutes',
] as const;

/** The create body less its scaling fields, which replicaScaling's rules check (capacity.ts). */
const CreateBodySchema = z.looseObject({
  name: z
    .string({ error: 'must be string' })
    .min(1, { error: 'must NOT have fewer than 1 characters' })
    .max(50, { error: 'must NOT have more than 50 characters' }),
  provider: z.enum(['aws', 'gcp', 'azure'], { error: 'must be one of: aws, gcp, azure' }).optional(),
  region: z.enum(REGIONS, { error: 'must be a supported region' }).optional(),
  tier: z.string().optional(),
  backupId: z.uuid({ error: 'must match format "uuid"' }).optional(),
  ipAccessList: z.array(z.strictObject({ source: z.string(), description: z.string().optional() })).optional(),
  releaseChannel: z.enum(['slow', 'default', 'fast'], { error: 'must be one of: slow, default, fast' }).optional(),
  tags: z
    .array(z.strictObject({ key: z.string(), value: z.string().optional() }))
    .max(50, { error: 'must NOT have more than 50 items' })
    .optional(),
  enableCoreDumps: z.boolean().optional(),
});

/** What a restore needs to know of a backup: which service it was taken of, and whether it is done. */
export interface BackupSource {
  status: string;
  service: ServiceRecordLike;
}

export interface Created {
  service: ServiceRecordLike;
  password: string;
}

/** A generated password of the kind the API hands out once: letters, digits and a few symbols. */
export function generatedPassword(): string {
  return `${randomBytes(12).toString('base64url')}~${randomBytes(3).toString('hex')}`;
}

/**
 * The service a create body describes, or the API's 400 sentence. With a backup, region and tier
 * must be the source's (the document: "must be the same as the values of the original instance"),
 * and the source's scaling is the starting point for the body's.
 */
export function createService(
  body: unknown,
  backup: BackupSource | undefined,
  now: number,
  missingBackupId?: string,
): Outcome<Created> {
  const parsed = CreateBodySchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, message: `request body.${issue?.path.map(String).join('.') ?? ''}: '${issue?.message ?? ''}'` };
  }
  const request = parsed.data;
  if (missingBackupId !== undefined) return { ok: false, message: `backup ${missingBackupId} not found` };
  const source = backup?.service;
  if (backup !== undefined && backup.status !== 'done')
    return { ok: false, message: `backup ${request.backupId ?? ''} is not done (status ${backup.status})` };
  const region = request.region ?? source?.region;
  const provider = request.provider ?? source?.provider;
  if (source !== undefined && (region !== source.region || (request.tier ?? source.tier) !== source.tier))
    return {
      ok: false,
      message: 'the region and the tier of a service restored from a backup must be those of the original',
    };
  if (region === undefined || provider === undefined)
    return { ok: false, message: 'request body: provider and region are required' };
  const scaling = scalingOf(body);
  if (!scaling.ok) return scaling;
  const id = randomUUID();
  const base: ServiceRecordLike = {
    ...(source ? capacityOf(source) : { numReplicas: 3, minReplicaMemoryGb: 8, maxReplicaMemoryGb: 32 }),
    id,
    name: request.name,
    provider,
    region,
    ...(source?.tier !== undefined ? { tier: source.tier } : request.tier ? { tier: request.tier } : {}),
    state: 'provisioning',
    clickhouseVersion: source?.['clickhouseVersion'] ?? '25.6.2.5983',
    endpoints: [
      { protocol: 'https', host: hostOf(id, region, provider), port: 8443 },
      { protocol: 'nativesecure', host: hostOf(id, region, provider), port: 9440 },
    ],
    ipAccessList: request.ipAccessList ?? [],
    releaseChannel: request.releaseChannel ?? 'default',
    tags: request.tags ?? [],
    createdAt: new Date(now).toISOString(),
    isPrimary: true,
    isReadonly: false,
    ...(request.enableCoreDumps !== undefined ? { enableCoreDumps: request.enableCoreDumps } : {}),
  };
  const scaled = applyReplicaScaling(base, scaling.value);
  if (!scaled.ok) return scaled;
  return { ok: true, value: { service: scaled.value, password: generatedPassword() } };
}

/** The scaling fields of a create body, checked by replicaScaling's rules. */
function scalingOf(body: unknown): Outcome<ScalingBody> {
  const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const scaling = Object.fromEntries(SCALING_FIELDS.filter((key) => key in fields).map((key) => [key, fields[key]]));
  return validateScalingBody(scaling);
}

/** The capacity fields of the source, which a restore starts from. */
function capacityOf(source: ServiceRecordLike): Partial<ServiceRecordLike> {
  const copied = [...SCALING_FIELDS, 'replicaMemoryGb'].filter((key) => source[key] !== undefined);
  return Object.fromEntries(copied.map((key) => [key, source[key]]));
}

function hostOf(id: string, region: string, provider: string): string {
  return `${id.split('-')[0] ?? id}.${region}.${provider}.clickhouse.cloud`;
}

/** DELETE …/services/{id}: "The service must be in stopped state" (the document). */
export function deletionRefusal(record: ServiceRecordLike): string | undefined {
  return record.state === 'stopped'
    ? undefined
    : `the service must be stopped to be deleted (it is ${record.state ?? 'in an unknown state'})`;
}
