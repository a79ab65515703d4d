/**
 * Durations of temporary changes (`for 2h`): how they are read, the shortest one, how they are
 * said. Apart from temporary.ts so that command parsers can use them without the kind table.
 */
export const MINUTE_MS = 60_000;
export const TEMPORARY_MIN_MS = MINUTE_MS;

const UNITS: Record<string, number> = { m: MINUTE_MS, h: 60 * MINUTE_MS, d: 24 * 60 * MINUTE_MS };
const DURATION = /^(\d{1,6})\s*(m|min|mins|minutes?|h|hr|hrs|hours?|d|days?)$/i;

export type DurationReading = { ok: true; ms: number } | { ok: false; message: string };

/** "30m", "2h", "3d" (and the spelled-out units) as milliseconds; range is checked separately. */
export function readDuration(text: string): DurationReading {
  const match = DURATION.exec(text.trim());
  const size = UNITS[match?.[2]?.charAt(0).toLowerCase() ?? ''];
  if (!match || size === undefined)
    return { ok: false, message: 'Write the duration as minutes, hours or days, like 30m, 2h or 3d.' };
  return { ok: true, ms: Number(match[1]) * size };
}

/** A sentence when the duration is outside 1 minute – `maxMs` (TEMPORARY_MAX_SECONDS). */
export function durationProblem(ms: number, maxMs: number): string | undefined {
  if (ms < TEMPORARY_MIN_MS) return 'A temporary change lasts at least 1 minute.';
  if (ms > maxMs)
    return `A temporary change lasts at most ${formatDuration(maxMs)} here; ask for ${formatDuration(maxMs)} or less and extend it later if needed.`;
  return undefined;
}

/** "2h", "1d 6h", "45m": the largest units first, seconds dropped. */
export function formatDuration(ms: number): string {
  const parts: string[] = [];
  let rest = Math.floor(ms / MINUTE_MS);
  for (const [unit, size] of [
    ['d', 1440],
    ['h', 60],
    ['m', 1],
  ] as const) {
    const count = Math.floor(rest / size);
    rest -= count * size;
    if (count > 0) parts.push(`${count}${unit}`);
  }
  return parts.length > 0 ? parts.join(' ') : `${Math.round(ms / 1000)}s`;
}
