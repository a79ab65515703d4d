import type { z } from 'zod';

/**
 * The items of an API list that parse, and how many did not: one odd entry never hides the
 * others (backups, keys, members, roles).
 */
export function parseEach<T>(schema: z.ZodType<T>, items: readonly unknown[]): { items: T[]; skipped: number } {
  const parsed = items.flatMap((item) => {
    const one = schema.safeParse(item);
    return one.success ? [one.data] : [];
  });
  return { items: parsed, skipped: items.length - parsed.length };
}
