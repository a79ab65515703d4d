import { afterEach, describe, expect, it } from 'vitest';
import { parseServiceList } from '../../src/cloud/envelopes.js';
import { DEMO_IDS, DEMO_ORG_ID, demoServices, syntheticServices } from '../../src/simulator/seed.js';
import type { CloudSimulator } from '../../src/simulator/server.js';
import type { ServiceRecordLike } from '../../src/simulator/state.js';
import { call, expectSuccess, listNames, listPath, listServices, startDemo, UUID_V4 } from './helpers.js';

let sim: CloudSimulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function demoOverHttp(): Promise<Map<string, ServiceRecordLike>> {
  sim = await startDemo();
  const services = await listServices(sim);
  return new Map(services.map((service) => [service.id, service]));
}

function byId(services: Map<string, ServiceRecordLike>, id: string): ServiceRecordLike {
  const service = services.get(id);
  if (service === undefined) throw new Error(`demo service ${id} missing`);
  return service;
}

describe('demo organization', () => {
  it('has 12 services with fixed, unique UUIDs and distinct names', () => {
    const services = demoServices();
    expect(DEMO_ORG_ID).toMatch(UUID_V4);
    expect(services.map((service) => service.id)).toEqual(Object.values(DEMO_IDS));
    for (const service of services) expect(service.id).toMatch(UUID_V4);
    expect(new Set(services.map((service) => service.name)).size).toBe(12);
    expect(services.map((service) => service.name)).toContain('analytics staging');
  });

  it('spreads over env and team tags and over several states', () => {
    const services = demoServices();
    const tagValues = (key: string): Set<string | undefined> =>
      new Set(
        services
          .flatMap((service) => service.tags ?? [])
          .filter((tag) => tag.key === key)
          .map((tag) => tag.value),
      );
    expect(tagValues('env')).toEqual(new Set(['prod', 'staging', 'dev']));
    expect(tagValues('team')).toEqual(new Set(['data', 'platform', 'analytics']));
    expect(new Set(services.map((service) => service.state))).toEqual(
      new Set(['running', 'idle', 'stopped', 'degraded']),
    );
  });

  it('carries currentScaling on every record, differing from the baseline only on metrics-prod', () => {
    const services = demoServices();
    for (const service of services) expect(service, service.name).toHaveProperty('currentScaling');
    const metrics = services.find((service) => service.id === DEMO_IDS.metricsProd);
    expect(metrics?.currentScaling).toMatchObject({ effectiveMinReplicas: 4, effectiveMinReplicaMemoryGb: 16 });
    expect(metrics).toMatchObject({ numReplicas: 3, minReplicaMemoryGb: 8 });
    const staging = services.find((service) => service.id === DEMO_IDS.ordersStaging);
    expect(staging?.currentScaling).toMatchObject({ effectiveMinReplicas: 1, effectiveMaxReplicas: 1 });
  });

  it('hands out fresh copies each time', () => {
    const first = demoServices();
    first[0]?.ipAccessList?.push({ source: '0.0.0.0/0', description: 'leak' });
    expect(demoServices()[0]?.ipAccessList).toHaveLength(2);
  });

  it('serves the real API fields beyond the brief', async () => {
    const ordersProd = byId(await demoOverHttp(), DEMO_IDS.ordersProd);
    for (const field of [
      'provider',
      'region',
      'state',
      'tier',
      'releaseChannel',
      'tags',
      'clickhouseVersion',
      'autoscalingMode',
      'profile',
      'complianceType',
      'enableCoreDumps',
      'numReplicas',
      'minTotalMemoryGb',
      'dataWarehouseId',
      'isPrimary',
      'isReadonly',
      'encryptionKey',
      'iamRole',
      'createdAt',
    ]) {
      expect(ordersProd, field).toHaveProperty(field);
    }
  });

  it('omits what the real API omits: total memory and numReplicas when scaling horizontally, tier on ml-dev', async () => {
    const services = await demoOverHttp();
    const search = byId(services, DEMO_IDS.searchProd);
    expect(search.autoscalingMode).toBe('horizontal');
    expect(search).toMatchObject({ minReplicas: 2, maxReplicas: 6, replicaMemoryGb: 16 });
    for (const field of ['numReplicas', 'minTotalMemoryGb', 'maxTotalMemoryGb'])
      expect(search).not.toHaveProperty(field);
    expect(byId(services, DEMO_IDS.mlDev)).not.toHaveProperty('tier');
    expect(byId(services, DEMO_IDS.sandboxDev).endpoints?.[1]?.username).toBeNull();
  });

  it('carries the risky settings the bot must warn about', async () => {
    const services = await demoOverHttp();
    const sources = (id: string): string[] => (byId(services, id).ipAccessList ?? []).map((entry) => entry.source);
    expect(sources(DEMO_IDS.eventsProd)).toContain('0.0.0.0/0');
    expect(sources(DEMO_IDS.eventsStaging)).toEqual([]);
    const protocols = (id: string): string[] =>
      (byId(services, id).endpoints ?? []).map((endpoint) => endpoint.protocol);
    expect(protocols(DEMO_IDS.billingProd)).toContain('mysql');
    const search = byId(services, DEMO_IDS.searchProd);
    expect(search.availablePrivateEndpointIds?.length).toBeGreaterThan(0);
    expect(search.privateEndpointIds).toEqual([]);
    const encrypted = [...services.values()].filter((service) => service.hasTransparentDataEncryption === true);
    expect(encrypted.map((service) => service.name)).toEqual(['orders-prod']);
    expect(encrypted[0]?.transparentDataEncryptionKeyId).toBeTruthy();
  });

  it('is read by the bot’s lenient wire schema without losing a record', async () => {
    sim = await startDemo();
    const result = expectSuccess<unknown[]>(await call(sim, 'GET', listPath()));
    const { services, skipped } = parseServiceList(result);
    expect(skipped).toBe(0);
    expect(services.find((service) => service.id === DEMO_IDS.ordersProd)?.clickhouseVersion).toBe('25.6.2.5983');
  });
});

describe('synthetic services', () => {
  it('lists 1000 services over HTTP, filterable by tag', async () => {
    sim = await startDemo({ services: syntheticServices(1000) });
    const all = await listServices(sim);
    expect(all).toHaveLength(1000);
    expect(new Set(all.map((service) => service.id)).size).toBe(1000);
    const prodData = await listNames(sim, ['tag:env=prod', 'tag:team=data']);
    expect(prodData.length).toBeGreaterThan(50);
    expect(prodData.length).toBeLessThan(200);
  });

  it('gives every k-th service a 200-entry IP list on request', () => {
    const services = syntheticServices(100, { largeIpListEvery: 10 });
    const sizes = services.map((service) => service.ipAccessList?.length);
    expect(sizes.filter((size) => size === 200)).toHaveLength(10);
    expect(sizes.filter((size) => size === 2)).toHaveLength(90);
    const sources = services[9]?.ipAccessList?.map((entry) => entry.source) ?? [];
    expect(new Set(sources).size).toBe(200);
  });

  it('is deterministic, so a scale test can name a service', () => {
    expect(syntheticServices(3)).toEqual(syntheticServices(3));
  });
});
