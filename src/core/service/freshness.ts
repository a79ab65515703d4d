/**
 * When a read of a service is recent enough for the approval rules to be judged on it as a change
 * is filed, instead of reading the service again (issue 36 §6: each read is one of the API's 10
 * requests per 10 s per key, shared by everyone).
 *
 * The filing judgement decides which rules a request is filed under (and refuses it under a deny
 * rule); the apply step reads the service afresh and judges the rules again before sending
 * anything, so a tag added since the filing can never let a change through under fewer rules.
 * What a slightly older read can do is only file a request under the rules of a moment ago. A
 * few seconds is the time between the lookup's read and the filing of the same command (or of
 * changes scripted back to back), and far shorter than the list cache's window (10 s by default),
 * so a list read by someone else several seconds ago is read again.
 */
export const FILING_READ_FRESH_MS = 5_000;

/** Whether a read answered at `readAt` (epoch ms, wall clock) may be judged on at `now`. */
export function freshEnoughToFile(readAt: number | undefined, now: number): boolean {
  if (readAt === undefined) return false;
  const age = now - readAt;
  // A read from the future (the clock stepped back) has no age to trust.
  return age >= 0 && age <= FILING_READ_FRESH_MS;
}
