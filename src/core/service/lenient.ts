/**
 * How records from the API are read: an unknown field is kept, a missing or odd one becomes
 * undefined (schema.ts says why). Apart from schema.ts so that the parts of a service (backup
 * configuration, schedules…) parse the same way without importing the record they attach to.
 */
import type { z } from 'zod';

/** An optional field that never fails the record: a wrong type or null reads as "absent". */
export const lenient = <T extends z.ZodType>(schema: T) => schema.optional().catch(undefined);
