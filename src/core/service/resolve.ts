/**
 * Finds the service a person meant by SERVICE: an id, an id prefix, or a name. A near miss or an
 * ambiguous name answers with candidates rather than guessing, since the next step may change
 * production.
 */
import type { ServiceRecord } from './schema.js';

export type Resolution =
  | { ok: true; service: ServiceRecord }
  | { ok: false; reason: 'not-found' | 'ambiguous'; query: string; candidates: ServiceRecord[] };

const MIN_ID_PREFIX = 6;
const MAX_CANDIDATES = 5;

export function resolveService(services: ServiceRecord[], query: string): Resolution {
  const wanted = query.trim();
  const lower = wanted.toLowerCase();
  const stages: Array<(s: ServiceRecord) => boolean> = [
    (s) => s.id === wanted,
    (s) => s.name === wanted,
    (s) => s.name.toLowerCase() === lower,
    (s) => wanted.length >= MIN_ID_PREFIX && s.id.toLowerCase().startsWith(lower),
  ];
  for (const matches of stages) {
    const found = services.filter(matches);
    if (found.length === 1 && found[0]) return { ok: true, service: found[0] };
    if (found.length > 1)
      return { ok: false, reason: 'ambiguous', query: wanted, candidates: found.slice(0, MAX_CANDIDATES) };
  }
  const similar = services.filter(
    (s) => s.name !== '' && (s.name.toLowerCase().includes(lower) || lower.includes(s.name.toLowerCase())),
  );
  return { ok: false, reason: 'not-found', query: wanted, candidates: similar.slice(0, MAX_CANDIDATES) };
}
