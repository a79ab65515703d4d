/** Checks shared by the exactly-once trials (one approver, two approvers). */
import { expect } from 'vitest';
import type { CloudSimulator } from '../../src/simulator/server.js';

export interface NamedTrial {
  n: number;
  id: string;
  serviceId: string;
}

/** Trial n renames its service to svc-trial-n: exactly one PATCH per trial, to that trial's service, and no other. */
export function expectOnePatchPerTrial(simulator: CloudSimulator, trials: readonly NamedTrial[]): void {
  const patches = simulator.requests.filter((r) => r.method === 'PATCH');
  const byName = new Map<string, string[]>();
  for (const patch of patches) {
    const name = (patch.body as { name?: unknown } | undefined)?.name;
    const key = typeof name === 'string' ? name : JSON.stringify(patch.body);
    byName.set(key, [...(byName.get(key) ?? []), patch.path]);
  }
  const wrong = trials.filter((t) => {
    const paths = byName.get(`svc-trial-${t.n}`) ?? [];
    return paths.length !== 1 || !paths[0]?.endsWith(`/services/${t.serviceId}`);
  });
  expect(wrong.map((t) => ({ n: t.n, id: t.id, patches: byName.get(`svc-trial-${t.n}`) ?? [] }))).toEqual([]);
  expect(patches).toHaveLength(trials.length);
}
