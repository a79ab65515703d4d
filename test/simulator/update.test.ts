import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_IDS } from '../../src/simulator/seed.js';
import type { CloudSimulator } from '../../src/simulator/server.js';
import { expectError, listServices, patch, patchOk, startDemo } from './helpers.js';

let sim: CloudSimulator;
beforeEach(async () => {
  sim = await startDemo();
});
afterEach(async () => {
  await sim.close();
});

/** PATCHes, expects a 400 envelope, and checks that the service did not change at all. */
async function expectRefused(serviceId: string, body: unknown): Promise<string> {
  const before = sim.service(serviceId);
  const message = expectError(await patch(sim, serviceId, body), 400, 'BAD_REQUEST');
  expect(sim.service(serviceId)).toEqual(before);
  return message;
}

describe('name', () => {
  it('renames the service and returns the whole updated record', async () => {
    const updated = await patchOk(sim, DEMO_IDS.ordersStaging, { name: 'orders staging 2' });
    expect(updated.name).toBe('orders staging 2');
    expect(updated.id).toBe(DEMO_IDS.ordersStaging);
    expect(updated.provider).toBe('aws');
    const listed = await listServices(sim, ['tag:env=staging']);
    expect(listed.map((service) => service.name)).toContain('orders staging 2');
  });

  it('accepts exactly 50 characters', async () => {
    const name = 'n'.repeat(50);
    expect((await patchOk(sim, DEMO_IDS.sandboxDev, { name })).name).toBe(name);
  });

  it('refuses 51 characters with a BAD_REQUEST naming request body.name', async () => {
    const message = await expectRefused(DEMO_IDS.sandboxDev, { name: 'n'.repeat(51) });
    expect(message).toMatch(/^BAD_REQUEST: request body\.name: /);
    expect(message).toContain('50');
  });

  it('refuses an empty name and a name that is not a string', async () => {
    expect(await expectRefused(DEMO_IDS.sandboxDev, { name: '' })).toMatch(/^BAD_REQUEST: request body\.name: /);
    expect(await expectRefused(DEMO_IDS.sandboxDev, { name: 42 })).toMatch(/^BAD_REQUEST: request body\.name: /);
  });
});

describe('body shape', () => {
  it('refuses an unknown top-level field and names it', async () => {
    expect(await expectRefused(DEMO_IDS.ordersProd, { name: 'ok', state: 'stopped' })).toContain('state');
  });

  it('refuses a body that is not an object', async () => {
    await expectRefused(DEMO_IDS.ordersProd, ['name']);
    await expectRefused(DEMO_IDS.ordersProd, null);
  });

  it('changes nothing when one part of a valid-looking body is refused', async () => {
    await expectRefused(DEMO_IDS.sandboxDev, { name: 'renamed', releaseChannel: 'fast' });
  });

  it('accepts an empty body and returns the service unchanged', async () => {
    const before = sim.service(DEMO_IDS.eventsProd);
    expect(await patchOk(sim, DEMO_IDS.eventsProd, {})).toEqual(before);
  });
});

describe('releaseChannel', () => {
  it('switches a production service to another channel', async () => {
    expect((await patchOk(sim, DEMO_IDS.ordersProd, { releaseChannel: 'slow' })).releaseChannel).toBe('slow');
  });

  it('refuses a non-default channel on a development service with the real API message', async () => {
    const message = await expectRefused(DEMO_IDS.sandboxDev, { releaseChannel: 'fast' });
    expect(message).toBe('BAD_REQUEST: releaseChannel is only available for production services');
    expect((await patchOk(sim, DEMO_IDS.sandboxDev, { releaseChannel: 'default' })).releaseChannel).toBe('default');
  });

  it('lets a service whose record has no tier, a null tier or a dedicated tier switch, like the Terraform provider', async () => {
    expect(sim.service(DEMO_IDS.mlDev)).not.toHaveProperty('tier');
    expect((await patchOk(sim, DEMO_IDS.mlDev, { releaseChannel: 'fast' })).releaseChannel).toBe('fast');
    for (const tier of [null, 'dedicated_high_mem']) {
      sim.changeOutsideBot(DEMO_IDS.analyticsStaging, { tier: tier as string });
      expect((await patchOk(sim, DEMO_IDS.analyticsStaging, { releaseChannel: 'slow' })).releaseChannel).toBe('slow');
      sim.changeOutsideBot(DEMO_IDS.analyticsStaging, { releaseChannel: 'default' });
    }
  });

  it('refuses a channel outside slow, default and fast', async () => {
    expect(await expectRefused(DEMO_IDS.ordersProd, { releaseChannel: 'beta' })).toContain(
      'request body.releaseChannel',
    );
  });
});

describe('ipAccessList', () => {
  it('executes remove before add, so removing and adding one source keeps it', async () => {
    const updated = await patchOk(sim, DEMO_IDS.ordersProd, {
      ipAccessList: {
        add: [{ source: '203.0.113.0/24', description: 'Office, new floor' }],
        remove: [{ source: '203.0.113.0/24', description: 'Office network' }],
      },
    });
    expect(updated.ipAccessList).toEqual([
      { source: '198.51.100.7', description: 'Corporate VPN egress' },
      { source: '203.0.113.0/24', description: 'Office, new floor' },
    ]);
  });

  it('removes by source, whatever description the request carries', async () => {
    const updated = await patchOk(sim, DEMO_IDS.eventsProd, {
      ipAccessList: { remove: [{ source: '0.0.0.0/0', description: 'not the stored description' }] },
    });
    expect(updated.ipAccessList?.map((entry) => entry.source)).toEqual(['203.0.113.0/24']);
  });

  it('treats removing an absent entry as a silent no-op', async () => {
    const before = sim.service(DEMO_IDS.ordersProd);
    const updated = await patchOk(sim, DEMO_IDS.ordersProd, { ipAccessList: { remove: [{ source: '192.0.2.1' }] } });
    expect(updated.ipAccessList).toEqual(before?.ipAccessList);
  });

  it('replaces the description of a source that is already listed instead of duplicating it', async () => {
    const updated = await patchOk(sim, DEMO_IDS.ordersProd, {
      ipAccessList: { add: [{ source: '198.51.100.7', description: 'VPN (renamed)' }] },
    });
    expect(updated.ipAccessList).toEqual([
      { source: '203.0.113.0/24', description: 'Office network' },
      { source: '198.51.100.7', description: 'VPN (renamed)' },
    ]);
  });

  it('can empty the list, leaving the service unreachable', async () => {
    const updated = await patchOk(sim, DEMO_IDS.ordersProd, {
      ipAccessList: { remove: [{ source: '203.0.113.0/24' }, { source: '198.51.100.7' }] },
    });
    expect(updated.ipAccessList).toEqual([]);
  });

  it('adds to an empty list, with an empty description when none is given', async () => {
    const updated = await patchOk(sim, DEMO_IDS.eventsStaging, { ipAccessList: { add: [{ source: '::1' }] } });
    expect(updated.ipAccessList).toEqual([{ source: '::1', description: '' }]);
  });

  it('refuses to add a source that is not an IP address or CIDR block', async () => {
    const message = await expectRefused(DEMO_IDS.ordersProd, {
      ipAccessList: { add: [{ source: 'office', description: 'typo' }] },
    });
    expect(message).toContain('request body.ipAccessList.add[0].source');
  });
});

describe('privateEndpointIds', () => {
  it('attaches an available endpoint and leaves the available set unchanged', async () => {
    const updated = await patchOk(sim, DEMO_IDS.searchProd, {
      privateEndpointIds: { add: ['pe-azure-search-eastus2-a'] },
    });
    expect(updated.privateEndpointIds).toEqual(['pe-azure-search-eastus2-a']);
    expect(updated.availablePrivateEndpointIds).toEqual(['pe-azure-search-eastus2-a', 'pe-azure-search-eastus2-b']);
  });

  it('refuses to attach an endpoint that is not available to the service', async () => {
    const message = await expectRefused(DEMO_IDS.searchProd, {
      privateEndpointIds: { add: ['vpce-0a1b2c3d4e5f60001'] },
    });
    expect(message).toContain('vpce-0a1b2c3d4e5f60001');
  });

  it('detaches before attaching, does not duplicate, and ignores detaching an absent id', async () => {
    const updated = await patchOk(sim, DEMO_IDS.metricsProd, {
      privateEndpointIds: {
        remove: ['vpce-0a1b2c3d4e5f60001', 'vpce-never-attached'],
        add: ['vpce-0a1b2c3d4e5f60002', 'vpce-0a1b2c3d4e5f60002'],
      },
    });
    expect(updated.privateEndpointIds).toEqual(['vpce-0a1b2c3d4e5f60002']);
  });
});

describe('endpoints', () => {
  it('switching mysql on adds a mysql endpoint on port 3306 of the service host', async () => {
    const updated = await patchOk(sim, DEMO_IDS.analyticsStaging, {
      endpoints: [{ protocol: 'mysql', enabled: true }],
    });
    expect(updated.endpoints?.map((endpoint) => endpoint.protocol)).toEqual(['https', 'nativesecure', 'mysql']);
    expect(updated.endpoints?.at(-1)).toEqual({
      protocol: 'mysql',
      host: 'z8x2c6v4mn.europe-west4.gcp.clickhouse.cloud',
      port: 3306,
      username: 'mysql4z8x2c6v4mn',
    });
  });

  it('switching mysql off removes it and keeps the other endpoints', async () => {
    const updated = await patchOk(sim, DEMO_IDS.billingProd, { endpoints: [{ protocol: 'mysql', enabled: false }] });
    expect(updated.endpoints?.map((endpoint) => endpoint.protocol)).toEqual(['https', 'nativesecure']);
  });

  it('switching mysql on when it is already on changes nothing', async () => {
    const before = sim.service(DEMO_IDS.billingProd);
    const updated = await patchOk(sim, DEMO_IDS.billingProd, { endpoints: [{ protocol: 'mysql', enabled: true }] });
    expect(updated.endpoints).toEqual(before?.endpoints);
  });

  it('refuses any protocol other than mysql', async () => {
    const message = await expectRefused(DEMO_IDS.ordersProd, { endpoints: [{ protocol: 'https', enabled: false }] });
    expect(message).toContain('request body.endpoints[0].protocol');
  });
});

describe('transparentDataEncryptionKeyId', () => {
  it('rotates the key of a service with transparent data encryption', async () => {
    const updated = await patchOk(sim, DEMO_IDS.ordersProd, { transparentDataEncryptionKeyId: 'tde-key-2025-01' });
    expect(updated.transparentDataEncryptionKeyId).toBe('tde-key-2025-01');
  });

  it('refuses a service without transparent data encryption', async () => {
    const message = await expectRefused(DEMO_IDS.eventsProd, { transparentDataEncryptionKeyId: 'tde-key-2025-01' });
    expect(message).toContain('transparent data encryption');
  });
});

describe('state outside the API', () => {
  it('serves changes made "in the console" and hands out copies that cannot alter it', async () => {
    sim.changeOutsideBot(DEMO_IDS.eventsProd, { name: 'events-prod-eu', state: 'stopped' });
    const copy = sim.service(DEMO_IDS.eventsProd);
    if (copy === undefined) throw new Error('events-prod vanished');
    copy.name = 'mutated copy';
    sim.services().forEach((service) => (service.name = 'mutated copy'));
    const listed = await listServices(sim, ['tag:team=platform', 'tag:env=prod']);
    expect(listed.map((service) => [service.name, service.state])).toEqual([
      ['events-prod-eu', 'stopped'],
      ['search-prod', 'running'],
    ]);
  });

  it('refuses to edit or add services that do not fit, so test mistakes surface', () => {
    expect(() => sim.changeOutsideBot('no-such-id', { name: 'x' })).toThrow(/no service/);
    expect(() => sim.addService({ id: DEMO_IDS.ordersProd, name: 'dup' })).toThrow(/already/);
  });
});

describe('tags', () => {
  it('removes before adding, removal by key, and adding a known key replaces its value', async () => {
    const updated = await patchOk(sim, DEMO_IDS.legacyReporting, {
      tags: {
        remove: [{ key: 'keep' }, { key: 'migration', value: 'some-other-value' }],
        add: [
          { key: 'team', value: 'platform' },
          { key: 'owner', value: 'ana' },
        ],
      },
    });
    expect(updated.tags).toEqual([
      { key: 'team', value: 'platform' },
      { key: 'owner', value: 'ana' },
    ]);
    expect((await listServices(sim, ['tag:owner=ana'])).map((s) => s.name)).toEqual(['legacy-reporting']);
  });

  it('treats removing an absent tag as a silent no-op and keeps a tag without a value', async () => {
    const before = sim.service(DEMO_IDS.ordersProd)?.tags;
    expect((await patchOk(sim, DEMO_IDS.ordersProd, { tags: { remove: [{ key: 'nope' }] } })).tags).toEqual(before);
    expect((await patchOk(sim, DEMO_IDS.ordersProd, { tags: { add: [{ key: 'pci' }] } })).tags).toContainEqual({
      key: 'pci',
    });
  });

  it('refuses tags outside the official alphabet and more than 50 in one list', async () => {
    expect(await expectRefused(DEMO_IDS.ordersProd, { tags: { add: [{ key: 'bad key' }] } })).toContain(
      'request body.tags.add[0].key',
    );
    expect(await expectRefused(DEMO_IDS.ordersProd, { tags: { add: [{ key: 'env', value: 'a=b' }] } })).toContain(
      'request body.tags.add[0].value',
    );
    const many = Array.from({ length: 51 }, (_, i) => ({ key: `k${i}` }));
    expect(await expectRefused(DEMO_IDS.ordersProd, { tags: { remove: many } })).toContain('request body.tags.remove');
    expect((await patchOk(sim, DEMO_IDS.ordersProd, { tags: { add: many.slice(0, 50) } })).tags).toHaveLength(52);
  });
});
