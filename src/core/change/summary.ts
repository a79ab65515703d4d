import type { FieldChange } from './types.js';

/** One line for audit entries, pending lists and drift attribution: "Name: a → b; IP access: absent → 10.0.0.0/8". */
export function changeSummary(changes: readonly FieldChange[]): string {
  return changes.map((c) => `${c.label}: ${c.before} → ${c.after}`).join('; ');
}
