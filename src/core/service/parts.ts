/**
 * The parts of a service the API keeps apart from its record (`…/services/{id}/NAME`): a change
 * to one is a change on a typed target, "the backup configuration of orders-prod". Each part says
 * where it lives, how it reads and how its update is written; the middle layer reads the parts a
 * plan touches alongside the record (`ServiceRecord.parts`), so the stale check, verification and
 * Undo of a kind on a part read it exactly as kinds on the record read their fields.
 */
import { z } from 'zod';
import { BackupConfigurationSchema, type BackupConfiguration } from './backup.js';

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
} as const;

export type PartName = keyof typeof SERVICE_PARTS;
export const PART_NAMES = Object.keys(SERVICE_PARTS) as PartName[];

export interface PartValues {
  backupConfiguration: BackupConfiguration;
}
export interface PartUpdates {
  backupConfiguration: BackupConfigurationUpdate;
}
/** The parts read alongside a record; null when the service has none (the API answered 404). */
export type ServiceParts = { [P in PartName]?: PartValues[P] | null };

/** "the backup configuration of orders-prod" */
export function partOf(part: PartName, serviceName: string): string {
  return `the ${SERVICE_PARTS[part].label} of ${serviceName}`;
}
