import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_IDS, demoServiceId } from '../../src/simulator/seed.js';
import type { CloudSimulator } from '../../src/simulator/server.js';
import { listNames, startDemo } from './helpers.js';

let sim: CloudSimulator;
beforeEach(async () => {
  sim = await startDemo();
});
afterEach(async () => {
  await sim.close();
});

const ALL_DEMO_NAMES = [
  'orders-prod',
  'orders-prod-readonly',
  'events-prod',
  'billing-prod',
  'search-prod',
  'metrics-prod',
  'analytics staging',
  'orders-staging',
  'events-staging',
  'sandbox-dev',
  'ml-dev',
  'legacy-reporting',
];

describe('tag filters', () => {
  it('returns every service, in a stable order, without filters', async () => {
    expect(await listNames(sim)).toEqual(ALL_DEMO_NAMES);
  });

  it('keeps only services whose tag equals the value', async () => {
    expect(await listNames(sim, ['tag:env=staging'])).toEqual([
      'analytics staging',
      'orders-staging',
      'events-staging',
    ]);
  });

  it('combines several filters with AND', async () => {
    expect(await listNames(sim, ['tag:env=prod', 'tag:team=platform'])).toEqual(['events-prod', 'search-prod']);
    expect(await listNames(sim, ['tag:env=dev', 'tag:team=platform'])).toEqual([]);
  });

  it('with tag:KEY keeps services that carry the tag, whatever its value', async () => {
    expect(await listNames(sim, ['tag:migration'])).toEqual(['legacy-reporting']);
    const withEnv = await listNames(sim, ['tag:env']);
    expect(withEnv).toHaveLength(11);
    expect(withEnv).not.toContain('legacy-reporting');
  });

  it('matches the whole value, dots included', async () => {
    expect(await listNames(sim, ['tag:migration=phase.2'])).toEqual(['legacy-reporting']);
    expect(await listNames(sim, ['tag:migration=phase'])).toEqual([]);
  });

  it('matches an empty value only against an empty (or missing) tag value', async () => {
    sim.addService({ id: demoServiceId(0xa1), name: 'owner-empty', tags: [{ key: 'owner', value: '' }] });
    sim.addService({ id: demoServiceId(0xa2), name: 'owner-set', tags: [{ key: 'owner', value: 'ana' }] });
    expect(await listNames(sim, ['tag:owner='])).toEqual(['owner-empty']);
    expect(await listNames(sim, ['tag:keep='])).toEqual(['legacy-reporting']);
    expect(await listNames(sim, ['tag:owner'])).toEqual(['owner-empty', 'owner-set']);
  });

  it('silently ignores a filter without the tag: prefix and returns the whole organization', async () => {
    expect(await listNames(sim, ['env=prod'])).toEqual(ALL_DEMO_NAMES);
    expect(await listNames(sim, ['env:prod', 'tag:'])).toEqual(ALL_DEMO_NAMES);
  });

  it('still applies the well-formed filters next to a malformed one', async () => {
    expect(await listNames(sim, ['team=data', 'tag:team=platform', 'tag:env=staging'])).toEqual(['events-staging']);
  });

  it('is case-sensitive on keys and values, like any exact match', async () => {
    expect(await listNames(sim, ['tag:env=PROD'])).toEqual([]);
    expect(await listNames(sim, ['tag:ENV'])).toEqual([]);
  });

  it('reflects changes made outside the bot and removed services', async () => {
    sim.changeOutsideBot(DEMO_IDS.sandboxDev, { tags: [{ key: 'env', value: 'prod' }] });
    sim.removeService(DEMO_IDS.ordersProd);
    const prod = await listNames(sim, ['tag:env=prod']);
    expect(prod).toContain('sandbox-dev');
    expect(prod).not.toContain('orders-prod');
  });
});
