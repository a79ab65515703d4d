/**
 * The parts of a service the API keeps apart from its record (`…/services/{id}/NAME`): a change
 * to one is a change on a typed target, "the backup configuration of orders-prod". Each part says
 * where it lives, how it reads and how its update is written; the middle layer reads the parts a
 * plan touches alongside the record (`ServiceRecord.parts`), so the stale check, verification and
 * Undo of a kind on a part read it exactly as kinds on the record read their fields.
 */
import { z } from 'zod';
import { BackupConfigurationSchema, parseBackups, type Backup, type BackupConfiguration } from './backup.js';
import {
  UpgradeWindowSchema,
  UpgradeWindowUpdateSchema,
  type UpgradeWindow,
  type UpgradeWindowUpdate,
} from './upgrade-window.js';
import {
  entriesOf,
  sameEntries,
  ScalingScheduleSchema,
  ScalingScheduleUpdateSchema,
  type ScalingSchedule,
  type ScalingScheduleUpdate,
} from './scaling-schedule.js';
import { QueryEndpointSchema, type QueryEndpoint } from './query-endpoint.js';

/** PATCH …/backupConfiguration (official OpenAPI: BackupConfigurationPatchRequest; null resets to the default). */
export const BackupConfigurationUpdateSchema = z.strictObject({
  backupPeriodInHours: z.number().int().positive().nullable().optional(),
  backupRetentionPeriodInHours: z.number().int().min(24).max(1080).multipleOf(24).nullable().optional(),
  backupStartTime: z
    .string()
    .regex(/^([01]\d|2[0-3]):[0-5]\d$/)
    .nullable()
    .optional(),
});
export type BackupConfigurationUpdate = z.infer<typeof BackupConfigurationUpdateSchema>;

/**
 * POST …/serviceQueryEndpoint (official OpenAPI: InstanceServiceQueryApiEndpointsPostRequest):
 * the whole endpoint, created or replaced; DELETE switches it off.
 */
export const QueryEndpointUpdateSchema = z.strictObject({
  roles: z.array(z.enum(['sql_console_read_only', 'sql_console_admin'])).min(1),
  openApiKeys: z.array(z.string().min(1)).min(1),
  allowedOrigins: z.string(),
});
export type QueryEndpointUpdate = z.infer<typeof QueryEndpointUpdateSchema>;

/**
 * PATCH …/password (official OpenAPI: ServicePasswordPatchRequest): empty, the API generates a
 * password; with the SHA-256 hash (base64) and optionally the MySQL double SHA-1 (hex), it sets it.
 */
export const PasswordUpdateSchema = z.strictObject({
  newPasswordHash: z
    .string()
    .regex(/^[A-Za-z0-9+/]{43}=$/)
    .optional(),
  newDoubleSha1Hash: z
    .string()
    .regex(/^[0-9a-fA-F]{40}$/)
    .optional(),
});
/**
 * As a plan keeps it: `sealedHashes` names the requester's hashes in the secret vault (never in a
 * plan in clear); flow-lease.ts puts them in right before sending, and the strict schema above
 * refuses a body that still names them.
 */
export type PasswordUpdate = z.infer<typeof PasswordUpdateSchema> & { sealedHashes?: string };

/**
 * The password part is write-only: the API answers a PATCH with the generated password (none when a
 * hash was sent). The answer is handed to its owner where it arrives (flow-lease.ts) and replaced
 * by `delivery` before anything else sees it: the value the rest of the bot holds never has `password`.
 */
export const PasswordAnswerSchema = z.looseObject({
  password: z.string().optional(),
  delivery: z.object({ to: z.string(), delivered: z.boolean() }).optional(),
});
export type PasswordAnswer = z.infer<typeof PasswordAnswerSchema>;
/** A part that is only read (its backups, newest first), to say something about a change to the service. */
export interface ReadOnlyPartSpec<Value> {
  path: string;
  label: string;
  schema: z.ZodType<Value>;
  method?: undefined;
  forbidden?: undefined;
}

export interface PartSpec<Value, Update> {
  /** The last segment of its path under the service. */
  path: string;
  /** How a sentence names it ("the backup configuration of orders-prod"). */
  label: string;
  schema: z.ZodType<Value>;
  /** How it is written: PATCH (fields), PUT or POST (the whole of it, create or replace). */
  method: 'PATCH' | 'PUT' | 'POST';
  /** The body of its write, checked strictly before anything is sent. */
  update: z.ZodType<Update>;
  /** Whether DELETE removes it (the service then has none: the part reads null). */
  removable: boolean;
  /** What a 403 on it means, when it is not the key's role (a feature the organization lacks). */
  forbidden?: string;
  /** Write-only (the password): never read with GET; it reads null. */
  writeOnly?: true;
  /**
   * Whether the part as read shows what was written, when fields compared one by one would not
   * say (a list replaced whole, read back in the API's own shape). Absent: field by field.
   */
  shows?(sent: Update | null, read: Value | null): boolean;
}

export const SERVICE_PARTS = {
  backupConfiguration: {
    path: 'backupConfiguration',
    label: 'backup configuration',
    schema: BackupConfigurationSchema,
    method: 'PATCH',
    update: BackupConfigurationUpdateSchema,
    removable: false,
  } satisfies PartSpec<BackupConfiguration, BackupConfigurationUpdate>,
  serviceQueryEndpoint: {
    path: 'serviceQueryEndpoint',
    label: 'Query API endpoint',
    schema: QueryEndpointSchema,
    method: 'POST',
    update: QueryEndpointUpdateSchema,
    removable: true,
  } satisfies PartSpec<QueryEndpoint, QueryEndpointUpdate>,
  password: {
    path: 'password',
    label: 'password',
    schema: PasswordAnswerSchema,
    method: 'PATCH',
    update: PasswordUpdateSchema,
    removable: false,
    writeOnly: true,
  } satisfies PartSpec<PasswordAnswer, PasswordUpdate>,
  backups: {
    path: 'backups',
    label: 'backups',
    // Parsed leniently, newest first: one odd backup never hides the others.
    schema: z.array(z.unknown()).transform((items) => parseBackups(items).backups),
  } satisfies ReadOnlyPartSpec<Backup[]>,
  upgradeWindow: {
    path: 'upgradeWindow',
    label: 'upgrade window',
    schema: UpgradeWindowSchema,
    method: 'PUT',
    update: UpgradeWindowUpdateSchema,
    removable: true,
    forbidden:
      'scheduled upgrades are not enabled for this organization, so its upgrade windows cannot be set. Ask ClickHouse Cloud support to enable them.',
  } satisfies PartSpec<UpgradeWindow, UpgradeWindowUpdate>,
  scalingSchedule: {
    path: 'scalingSchedule',
    label: 'scaling schedule',
    schema: ScalingScheduleSchema,
    method: 'POST',
    update: ScalingScheduleUpdateSchema,
    removable: true,
    forbidden:
      'scheduled autoscaling (scaling schedules) is not enabled for this organization. Ask ClickHouse Cloud support to enable it; until then, scale by hand with scale.',
    // The list is replaced whole: it shows the change when it reads back as sent, entry by entry.
    shows: (sent, read) => sameEntries(sent?.entries ?? [], entriesOf(read)),
  } satisfies PartSpec<ScalingSchedule, ScalingScheduleUpdate>,
} as const;

export type PartName = keyof typeof SERVICE_PARTS;
export const PART_NAMES = Object.keys(SERVICE_PARTS) as PartName[];

export interface PartValues {
  backupConfiguration: BackupConfiguration;
  upgradeWindow: UpgradeWindow;
  scalingSchedule: ScalingSchedule;
  backups: Backup[];
  serviceQueryEndpoint: QueryEndpoint;
  password: PasswordAnswer;
}
export interface PartUpdates {
  backupConfiguration: BackupConfigurationUpdate;
  upgradeWindow: UpgradeWindowUpdate;
  scalingSchedule: ScalingScheduleUpdate;
  /** Only read. */
  backups: never;
  serviceQueryEndpoint: QueryEndpointUpdate;
  password: PasswordUpdate;
}

/** The parts read alongside a record; null when the service has none (the API answered 404). */
export type ServiceParts = { [P in PartName]?: PartValues[P] | null };

/**
 * A part's spec typed by its name (a part that is only read has no method). Each entry of
 * SERVICE_PARTS `satisfies` the spec of its own value and update, which TypeScript cannot carry
 * through an index by a type parameter.
 */
export function partSpec<P extends PartName>(
  part: P,
): PartSpec<PartValues[P], PartUpdates[P]> | ReadOnlyPartSpec<PartValues[P]> {
  return SERVICE_PARTS[part] as unknown as PartSpec<PartValues[P], PartUpdates[P]> | ReadOnlyPartSpec<PartValues[P]>;
}
/** Whether a part is write-only (the password): never read, never shown by a read. */
export const isWriteOnly = (part: PartName): boolean => {
  const spec = PART_SPECS[part];
  return 'writeOnly' in spec && spec.writeOnly === true;
};

/** Each part's spec, as the client reads and writes it (a part that is only read has no method). */
export const PART_SPECS: {
  [P in PartName]: PartSpec<PartValues[P], PartUpdates[P]> | ReadOnlyPartSpec<PartValues[P]>;
} = SERVICE_PARTS;

/** "the backup configuration of orders-prod" */
export function partOf(part: PartName, serviceName: string): string {
  return `the ${SERVICE_PARTS[part].label} of ${serviceName}`;
}
