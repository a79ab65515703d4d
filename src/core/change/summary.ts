import type { FieldChange } from './types.js';

/** A value of several lines (a scaling schedule's entries) on one line. */
const oneLine = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .join(' | ');

/** One line for audit entries, pending lists and drift attribution: "Name: a → b; IP access: absent → 10.0.0.0/8". */
export function changeSummary(changes: readonly FieldChange[]): string {
  return changes.map((c) => `${c.label}: ${oneLine(c.before)} → ${oneLine(c.after)}`).join('; ');
}
