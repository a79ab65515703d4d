/**
 * One row of GET /v1/organizations/{org}/usageCost: the cost of one entity (a service, a data
 * warehouse, a ClickPipe) on one UTC day, in ClickHouse Credits (CHC). Parsed leniently like
 * service records: a metric the API leaves out reads as 0, an unknown field is ignored, and one
 * odd row is dropped rather than failing the whole answer.
 */
import { z } from 'zod';
import { lenient } from '../service/schema.js';

const credits = z.number().finite().catch(0).default(0);

export const CostMetricsSchema = z.looseObject({
  computeCHC: credits,
  storageCHC: credits,
  backupCHC: credits,
  dataTransferCHC: credits,
  publicDataTransferCHC: credits,
  interRegionTier1DataTransferCHC: credits,
  interRegionTier2DataTransferCHC: credits,
  interRegionTier3DataTransferCHC: credits,
  interRegionTier4DataTransferCHC: credits,
  initialLoadCHC: credits,
});

export const CostRowSchema = z.object({
  date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  entityType: z.string().catch('unknown'),
  entityId: z.string().min(1),
  entityName: lenient(z.string()),
  serviceId: lenient(z.string()),
  dataWarehouseId: lenient(z.string()),
  totalCHC: credits,
  locked: z.boolean().catch(false).default(false),
  metrics: CostMetricsSchema.catch(() => CostMetricsSchema.parse({})).default(() => CostMetricsSchema.parse({})),
});
export type CostRow = z.infer<typeof CostRowSchema>;
export type CostMetrics = CostRow['metrics'];

/** The rows that parse; how many did not. */
export function parseCostRows(items: readonly unknown[]): { rows: CostRow[]; skipped: number } {
  const rows: CostRow[] = [];
  for (const item of items) {
    const parsed = CostRowSchema.safeParse(item);
    if (parsed.success) rows.push(parsed.data);
  }
  return { rows, skipped: items.length - rows.length };
}
