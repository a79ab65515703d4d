import type { FieldChange } from './types.js';

/** A value of several lines (a scaling schedule's entries) on one line. */
const oneLine = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .join(' | ');

/** The words a plan writes for "not there before" and "not there after" an entry of a list. */
const ABSENT_BEFORE = new Set(['absent', 'not attached']);
const ABSENT_AFTER = new Set(['removed', 'detached']);

/**
 * An entry of a list (a tag, an IP access entry, a private endpoint) added or removed, with the
 * sign every message shows it with: `+` added, `−` (U+2212) removed. A value that changes is none.
 */
export function entryMove(
  change: Pick<FieldChange, 'before' | 'after'>,
): { sign: '+' | '−'; entry: string } | undefined {
  if (ABSENT_BEFORE.has(change.before)) return { sign: '+', entry: change.after };
  if (ABSENT_AFTER.has(change.after)) return { sign: '−', entry: change.before };
  return undefined;
}

/** One change in plain text: "Name: a → b", "IP access: + 10.0.0.0/8", "Tag: − env=prod". */
export function fieldChangeText(change: FieldChange): string {
  const move = entryMove(change);
  return move
    ? `${change.label}: ${move.sign} ${oneLine(move.entry)}`
    : `${change.label}: ${oneLine(change.before)} → ${oneLine(change.after)}`;
}

/** One line for audit entries, pending lists and drift attribution: "Name: a → b; IP access: + 10.0.0.0/8". */
export function changeSummary(changes: readonly FieldChange[]): string {
  return changes.map(fieldChangeText).join('; ');
}
