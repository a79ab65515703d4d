/** The API's response envelopes around service records (see core/service/schema.ts). */
import { z } from 'zod';
import { BackupConfigurationSchema } from '../core/service/backup.js';
import { lenient, ServiceRecordSchema, type ServiceRecord } from '../core/service/schema.js';

/**
 * Official clients read only `result`: a success without `status` or `requestId` is still a
 * success (the HTTP status already said so).
 */
const envelope = { status: lenient(z.number()), requestId: z.string().catch('') };

/** The list result is parsed record by record, so one odd record never breaks a listing. */
export const ListEnvelopeSchema = z.looseObject({ ...envelope, result: z.array(z.unknown()) });
/** One service: the answer to GET of one service and to PATCH. */
export const ServiceEnvelopeSchema = z.looseObject({ ...envelope, result: ServiceRecordSchema });
/** usageCost: rows are parsed one by one (core/cost/schema.ts), so one odd row never breaks a report. */
export const UsageCostEnvelopeSchema = z.looseObject({
  ...envelope,
  result: z.looseObject({ grandTotalCHC: lenient(z.number()), costs: z.array(z.unknown()) }),
});
/** GET …/backupConfiguration. */
export const BackupConfigurationEnvelopeSchema = z.looseObject({ ...envelope, result: BackupConfigurationSchema });
export const ErrorEnvelopeSchema = z.looseObject({
  status: lenient(z.number()),
  error: lenient(z.string()),
  requestId: lenient(z.string()),
});

export function parseServiceList(items: unknown[]): { services: ServiceRecord[]; skipped: number } {
  const services: ServiceRecord[] = [];
  for (const item of items) {
    const parsed = ServiceRecordSchema.safeParse(item);
    if (parsed.success) services.push(parsed.data);
  }
  return { services, skipped: items.length - services.length };
}
