import { describe, expect, it } from 'vitest';
import { ServiceUpdateSchema } from '../../../src/core/service/schema.js';
import { planChange } from '../../../src/core/change/plan.js';
import { staleFields } from '../../../src/core/change/state.js';
import { planIsVisible } from '../../../src/core/change/verify.js';
import { mustPlan, refused, service, SERVICE_ID } from '../fixtures.js';

describe('planning one field at a time', () => {
  it('renames: the body carries the new name and the line shows old → new', () => {
    const plan = mustPlan(service(), { name: 'orders-main' });
    expect(plan.update).toStrictEqual({ name: 'orders-main' });
    expect(plan.changes).toStrictEqual([{ field: 'name', label: 'Name', before: 'orders-prod', after: 'orders-main' }]);
    expect(plan.warnings).toStrictEqual([]);
    expect(plan.before).toStrictEqual({ name: 'orders-prod' });
    expect(plan.serviceId).toBe(SERVICE_ID);
    expect(plan.serviceName).toBe('orders-prod');
  });

  it('trims the new name before sending it', () => {
    expect(mustPlan(service(), { name: '  orders main  ' }).update).toStrictEqual({ name: 'orders main' });
  });

  it('accepts a name of exactly 50 characters', () => {
    const name = 'n'.repeat(50);
    expect(mustPlan(service(), { name }).update).toStrictEqual({ name });
  });

  it('switches the release channel of a production service', () => {
    const plan = mustPlan(service(), { releaseChannel: 'fast' });
    expect(plan.update).toStrictEqual({ releaseChannel: 'fast' });
    expect(plan.changes).toStrictEqual([
      { field: 'releaseChannel', label: 'Release channel', before: 'default', after: 'fast' },
    ]);
    expect(plan.before).toStrictEqual({ releaseChannel: 'default' });
  });

  it('switches the release channel when the tier is absent (only the API can tell)', () => {
    const plan = mustPlan(service({ tier: undefined, releaseChannel: undefined }), { releaseChannel: 'slow' });
    expect(plan.update).toStrictEqual({ releaseChannel: 'slow' });
    expect(plan.changes[0]).toMatchObject({ before: 'unknown', after: 'slow' });
    expect(plan.before).toStrictEqual({ releaseChannel: null });
  });

  it('opens MySQL with a warning', () => {
    const plan = mustPlan(service(), { mysqlEndpoint: true });
    expect(plan.update).toStrictEqual({ endpoints: [{ protocol: 'mysql', enabled: true }] });
    expect(plan.changes).toStrictEqual([
      { field: 'mysqlEndpoint', label: 'MySQL endpoint', before: 'off', after: 'on' },
    ]);
    expect(plan.warnings).toHaveLength(1);
    expect(plan.warnings[0]).toMatch(/MySQL endpoint will be opened/);
    expect(plan.before).toStrictEqual({ mysqlEndpoint: false });
  });

  it('closes MySQL without a warning', () => {
    const record = service({ endpoints: [{ protocol: 'mysql', host: 'h', port: 3306 }] });
    const plan = mustPlan(record, { mysqlEndpoint: false });
    expect(plan.update).toStrictEqual({ endpoints: [{ protocol: 'mysql', enabled: false }] });
    expect(plan.changes[0]).toMatchObject({ before: 'on', after: 'off' });
    expect(plan.warnings).toStrictEqual([]);
  });

  it('adds an IP entry with its description', () => {
    const plan = mustPlan(service(), { ipAdd: [{ source: '198.51.100.0/24', description: ' partner ' }] });
    expect(plan.update).toStrictEqual({
      ipAccessList: { add: [{ source: '198.51.100.0/24', description: 'partner' }] },
    });
    expect(plan.changes).toStrictEqual([
      { field: 'ipAccessList', label: 'IP access', before: 'absent', after: '198.51.100.0/24 (partner)' },
    ]);
    expect(plan.warnings).toStrictEqual([]);
    expect(plan.before).toStrictEqual({
      ipAccessList: [
        { source: '10.0.0.0/8', description: 'office' },
        { source: '203.0.113.7/32', description: 'vpn' },
      ],
    });
  });

  it('adds an entry without a description as just the source', () => {
    const plan = mustPlan(service(), { ipAdd: [{ source: ' 2001:db8::/32 ', description: '   ' }] });
    expect(plan.update).toStrictEqual({ ipAccessList: { add: [{ source: '2001:db8::/32' }] } });
    expect(plan.changes[0]).toMatchObject({ before: 'absent', after: '2001:db8::/32' });
  });

  it('removes an IP entry by source', () => {
    const plan = mustPlan(service(), { ipRemove: ['203.0.113.7/32'] });
    expect(plan.update).toStrictEqual({ ipAccessList: { remove: [{ source: '203.0.113.7/32' }] } });
    expect(plan.changes).toStrictEqual([
      { field: 'ipAccessList', label: 'IP access', before: '203.0.113.7/32 (vpn)', after: 'removed' },
    ]);
    expect(plan.warnings).toStrictEqual([]);
  });

  it('adds and removes in one body', () => {
    const plan = mustPlan(service(), { ipAdd: [{ source: '192.0.2.1' }], ipRemove: ['10.0.0.0/8'] });
    expect(plan.update.ipAccessList?.add).toStrictEqual([{ source: '192.0.2.1' }]);
    expect(plan.update.ipAccessList?.remove).toStrictEqual([{ source: '10.0.0.0/8' }]);
    expect(plan.changes.map((c) => `${c.before} → ${c.after}`).sort()).toStrictEqual([
      '10.0.0.0/8 (office) → removed',
      'absent → 192.0.2.1',
    ]);
  });

  it('changes the description of an existing entry, showing old and new', () => {
    const plan = mustPlan(service(), { ipAdd: [{ source: '10.0.0.0/8', description: 'head office' }] });
    expect(plan.update).toStrictEqual({
      ipAccessList: { remove: [{ source: '10.0.0.0/8' }], add: [{ source: '10.0.0.0/8', description: 'head office' }] },
    });
    expect(plan.changes[0]).toMatchObject({ before: '10.0.0.0/8 (office)', after: '10.0.0.0/8 (head office)' });
  });

  it('attaches an available private endpoint', () => {
    const plan = mustPlan(service(), { privateEndpointAttach: ['pe-free'] });
    expect(plan.update).toStrictEqual({ privateEndpointIds: { add: ['pe-free'] } });
    expect(plan.changes).toStrictEqual([
      { field: 'privateEndpointIds', label: 'Private endpoint', before: 'not attached', after: 'pe-free' },
    ]);
    expect(plan.before).toStrictEqual({ privateEndpointIds: ['pe-attached'] });
  });

  it('detaches an attached private endpoint', () => {
    const plan = mustPlan(service(), { privateEndpointDetach: ['pe-attached'] });
    expect(plan.update).toStrictEqual({ privateEndpointIds: { remove: ['pe-attached'] } });
    expect(plan.changes).toStrictEqual([
      { field: 'privateEndpointIds', label: 'Private endpoint', before: 'pe-attached', after: 'detached' },
    ]);
  });

  it('rotates the TDE key', () => {
    const plan = mustPlan(service(), { tdeKeyId: ' key-2 ' });
    expect(plan.update).toStrictEqual({ transparentDataEncryptionKeyId: 'key-2' });
    expect(plan.changes).toStrictEqual([
      { field: 'tdeKeyId', label: 'Encryption key', before: 'key-1', after: 'key-2' },
    ]);
    expect(plan.before).toStrictEqual({ tdeKeyId: 'key-1' });
  });

  it('plans every field at once, and the body passes the strict outgoing schema', () => {
    const plan = mustPlan(service(), {
      name: 'orders-main',
      releaseChannel: 'slow',
      mysqlEndpoint: true,
      ipAdd: [{ source: '192.0.2.0/24', description: 'lab' }],
      ipRemove: ['203.0.113.7/32'],
      privateEndpointAttach: ['pe-free'],
      privateEndpointDetach: ['pe-attached'],
      tdeKeyId: 'key-2',
    });
    expect(ServiceUpdateSchema.parse(plan.update)).toStrictEqual(plan.update);
    expect(plan.update).toStrictEqual({
      name: 'orders-main',
      releaseChannel: 'slow',
      endpoints: [{ protocol: 'mysql', enabled: true }],
      ipAccessList: { remove: [{ source: '203.0.113.7/32' }], add: [{ source: '192.0.2.0/24', description: 'lab' }] },
      privateEndpointIds: { remove: ['pe-attached'], add: ['pe-free'] },
      transparentDataEncryptionKeyId: 'key-2',
    });
    expect(Object.keys(plan.before).sort()).toStrictEqual([
      'ipAccessList',
      'mysqlEndpoint',
      'name',
      'privateEndpointIds',
      'releaseChannel',
      'tdeKeyId',
    ]);
    expect(plan.changes).toHaveLength(8);
  });
});

describe('warnings', () => {
  it.each(['0.0.0.0/0', '::/0'])('warns that adding %s opens the service to the internet', (source) => {
    const plan = mustPlan(service(), { ipAdd: [{ source }] });
    expect(plan.warnings).toStrictEqual([`${source} opens the service to the whole internet.`]);
  });

  it('warns when the last IP entry is removed', () => {
    const plan = mustPlan(service({ ipAccessList: [{ source: '10.0.0.0/8' }] }), { ipRemove: ['10.0.0.0/8'] });
    expect(plan.warnings).toHaveLength(1);
    expect(plan.warnings[0]).toMatch(/removes the last IP access entry/);
  });

  it('warns when every entry is removed at once', () => {
    const plan = mustPlan(service(), { ipRemove: ['10.0.0.0/8', '203.0.113.7/32'] });
    expect(plan.warnings.some((w) => w.includes('last IP access entry'))).toBe(true);
  });

  it('does not warn about the last entry when one is added in its place', () => {
    const plan = mustPlan(service({ ipAccessList: [{ source: '10.0.0.0/8' }] }), {
      ipRemove: ['10.0.0.0/8'],
      ipAdd: [{ source: '10.1.0.0/16' }],
    });
    expect(plan.warnings).toStrictEqual([]);
  });

  it.each(['10.0.0.0/0', '192.0.2.1/0', '0::/0', '2001:db8::/0'])(
    'warns that %s (any /0 block) opens the service to the internet',
    (source) => {
      const plan = mustPlan(service(), { ipAdd: [{ source }] });
      expect(plan.warnings).toStrictEqual([`${source} opens the service to the whole internet.`]);
    },
  );

  it.each([
    [['0.0.0.0/1', '128.0.0.0/1'], 'IPv4'],
    [['::/1', '8000::/1'], 'IPv6'],
    [['0.0.0.0/2', '64.0.0.0/2', '128.0.0.0/2', '192.0.0.0/2'], 'IPv4'],
  ])('warns that %j together open the service to the internet', (sources, family) => {
    const plan = mustPlan(service(), { ipAdd: sources.map((source) => ({ source })) });
    expect(plan.warnings).toStrictEqual([
      `The IP access list will admit every ${family} address (${sources.join(' + ')}): this opens the service to the whole internet.`,
    ]);
  });

  it('warns when one added half completes a half already listed', () => {
    const plan = mustPlan(service({ ipAccessList: [{ source: '0.0.0.0/1' }] }), { ipAdd: [{ source: '128.0.0.0/1' }] });
    expect(plan.warnings).toStrictEqual([
      'The IP access list will admit every IPv4 address (0.0.0.0/1 + 128.0.0.0/1): this opens the service to the whole internet.',
    ]);
  });

  it.each([
    ['1.0.0.0/7', 'IPv4', 8],
    ['2000::/3', 'IPv6', 16],
  ])('warns that the single entry %s is very broad', (source, family, prefix) => {
    const plan = mustPlan(service(), { ipAdd: [{ source }] });
    expect(plan.warnings).toStrictEqual([
      `${source} admits millions of addresses (${family} blocks shorter than /${prefix} are very broad).`,
    ]);
  });

  it('does not warn about a /8 or a /16', () => {
    expect(
      mustPlan(service(), { ipAdd: [{ source: '11.0.0.0/8' }, { source: '2001:db8::/16' }] }).warnings,
    ).toStrictEqual([]);
  });

  it('collects several warnings in one plan', () => {
    const plan = mustPlan(service(), { mysqlEndpoint: true, ipAdd: [{ source: '0.0.0.0/0' }, { source: '::/0' }] });
    expect(plan.warnings).toHaveLength(3);
  });
});

describe('refusals', () => {
  it.each(['10.0.0.300/8', '10.0.0.0/33', '2001:db8::/129', 'office', '10.0.0.0/8/8', '10.0.0.0/-1', ''])(
    'refuses the IP source %j',
    (source) => {
      const problems = refused(service(), { ipAdd: [{ source }] });
      expect(problems).toHaveLength(1);
      expect(problems[0]?.field).toBe('ipAdd');
      expect(problems[0]?.message).toContain('is not an IP address or CIDR block');
      expect(problems[0]?.message).toContain(`"${source}"`);
    },
  );

  it('refuses a description longer than 255 characters', () => {
    const problems = refused(service(), { ipAdd: [{ source: '192.0.2.1', description: 'd'.repeat(256) }] });
    expect(problems).toStrictEqual([
      { field: 'ipAdd', message: 'The description of 192.0.2.1 is longer than 255 characters.' },
    ]);
  });

  it('refuses a 51-character name, saying 51 and 50', () => {
    const problems = refused(service(), { name: 'n'.repeat(51) });
    expect(problems).toHaveLength(1);
    expect(problems[0]?.field).toBe('name');
    expect(problems[0]?.message).toContain('51');
    expect(problems[0]?.message).toContain('50');
  });

  it.each(['orders 🚀', 'orders.prod', 'orders/prod', '<!channel>'])(
    'refuses the name %j as having characters the API rejects',
    (name) => {
      const [problem] = refused(service(), { name });
      expect(problem?.field).toBe('name');
      expect(problem?.message).toMatch(/letters, digits, spaces, hyphens and underscores/);
    },
  );

  it('refuses an empty name', () => {
    const [problem] = refused(service(), { name: '   ' });
    expect(problem).toStrictEqual({ field: 'name', message: 'The new name must not be empty.' });
  });

  it('refuses a non-default release channel on a development service', () => {
    for (const releaseChannel of ['fast', 'slow'] as const) {
      const [problem] = refused(service({ tier: 'development' }), { releaseChannel });
      expect(problem?.field).toBe('releaseChannel');
      expect(problem?.message).toBe(
        `Development services stay on the default release channel; only production and dedicated services can switch to ${releaseChannel}.`,
      );
    }
    expect(
      mustPlan(service({ tier: 'development', releaseChannel: 'fast' }), { releaseChannel: 'default' }).update,
    ).toStrictEqual({ releaseChannel: 'default' });
  });

  it.each([['production'], ['dedicated_high_mem'], [null], [undefined], ['']] as const)(
    'lets a service of tier %j switch its release channel',
    (tier) => {
      expect(mustPlan(service({ tier }), { releaseChannel: 'fast' }).update).toStrictEqual({ releaseChannel: 'fast' });
    },
  );

  it('refuses to remove an IP entry that is not there', () => {
    const problems = refused(service(), { ipRemove: ['192.0.2.1/32'] });
    expect(problems).toStrictEqual([
      {
        field: 'ipRemove',
        message: "192.0.2.1/32 is not in the service's IP access list, so there is nothing to remove.",
      },
    ]);
  });

  it('refuses to remove from a record without an IP access list', () => {
    const problems = refused(service({ ipAccessList: undefined }), { ipRemove: ['10.0.0.0/8'] });
    expect(problems[0]?.field).toBe('ipRemove');
  });

  it('refuses to attach an endpoint that is not available, listing what is', () => {
    const [problem] = refused(service(), { privateEndpointAttach: ['pe-elsewhere'] });
    expect(problem?.field).toBe('privateEndpointAttach');
    expect(problem?.message).toContain('pe-elsewhere is not available');
    expect(problem?.message).toContain('available: pe-attached, pe-free');
  });

  it('refuses to attach when nothing is available, without an empty list', () => {
    const [problem] = refused(service({ availablePrivateEndpointIds: [] }), { privateEndpointAttach: ['pe-x'] });
    expect(problem?.message).toBe('Private endpoint pe-x is not available to this service.');
  });

  it('refuses to detach an endpoint that is not attached', () => {
    const problems = refused(service(), { privateEndpointDetach: ['pe-free'] });
    expect(problems).toStrictEqual([
      { field: 'privateEndpointDetach', message: 'Private endpoint pe-free is not attached to this service.' },
    ]);
  });

  it('refuses to rotate the TDE key of a service without TDE', () => {
    const problems = refused(
      service({ hasTransparentDataEncryption: false, transparentDataEncryptionKeyId: undefined }),
      { tdeKeyId: 'key-2' },
    );
    expect(problems).toHaveLength(1);
    expect(problems[0]?.field).toBe('tdeKeyId');
    expect(problems[0]?.message).toMatch(/does not use transparent data encryption/);
  });

  it('refuses a request that changes nothing', () => {
    const problems = refused(service(), {
      name: 'orders-prod',
      releaseChannel: 'default',
      mysqlEndpoint: false,
      ipAdd: [{ source: '10.0.0.0/8', description: 'office' }],
      privateEndpointAttach: ['pe-attached'],
      tdeKeyId: 'key-1',
    });
    expect(problems).toHaveLength(1);
    expect(problems[0]?.field).toBe('request');
    expect(problems[0]?.message).toContain('changes nothing');
  });

  it('refuses an empty intent as changing nothing', () => {
    expect(refused(service(), {})[0]?.message).toContain('changes nothing');
  });

  it('refuses a key id the API would refuse (over 256 characters) before anyone approves it', () => {
    const problems = refused(service(), { tdeKeyId: 'k'.repeat(257) });
    expect(problems.map((p) => p.field)).toStrictEqual(['tdeKeyId']);
  });

  it('refuses the same source added and removed', () => {
    const problems = refused(service(), {
      ipAdd: [{ source: '10.0.0.0/8', description: 'new' }],
      ipRemove: ['10.0.0.0/8'],
    });
    expect(problems).toStrictEqual([{ field: 'ipAdd', message: '10.0.0.0/8 is both added and removed; choose one.' }]);
  });

  it('reports every problem of a request, not just the first', () => {
    const problems = refused(service({ tier: 'development' }), {
      name: 'x'.repeat(60),
      releaseChannel: 'fast',
      ipAdd: [{ source: '10.0.0.300/8' }],
      ipRemove: ['192.0.2.1'],
      privateEndpointAttach: ['pe-nope'],
      privateEndpointDetach: ['pe-free'],
    });
    expect(problems.map((p) => p.field).sort()).toStrictEqual([
      'ipAdd',
      'ipRemove',
      'name',
      'privateEndpointAttach',
      'privateEndpointDetach',
      'releaseChannel',
    ]);
  });

  it('refuses the whole request when one part is invalid, even if others are fine', () => {
    const result = planChange(service(), { name: 'orders-main', ipAdd: [{ source: '10.0.0.0/33' }] });
    expect(result.ok).toBe(false);
  });
});

describe('accepted plans send a body the strict outgoing schema accepts', () => {
  const intents = [
    { name: 'a' },
    { name: 'n'.repeat(50) },
    { releaseChannel: 'slow' as const },
    { mysqlEndpoint: true },
    { ipAdd: [{ source: 'ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255/128', description: 'd'.repeat(255) }] },
    { ipRemove: ['10.0.0.0/8', '203.0.113.7/32'] },
    { privateEndpointAttach: ['pe-free'], privateEndpointDetach: ['pe-attached'] },
    { tdeKeyId: 'k'.repeat(256) },
  ];
  it.each(intents)('%j', (intent) => {
    const plan = mustPlan(service(), intent);
    expect(ServiceUpdateSchema.safeParse(plan.update).success).toBe(true);
  });
});

describe('no-op parts are dropped, the rest remains', () => {
  it('drops an unchanged name and keeps the IP addition', () => {
    const plan = mustPlan(service(), { name: 'orders-prod', ipAdd: [{ source: '192.0.2.1' }] });
    expect(plan.update).toStrictEqual({ ipAccessList: { add: [{ source: '192.0.2.1' }] } });
    expect(plan.changes.map((c) => c.field)).toStrictEqual(['ipAccessList']);
    expect(Object.keys(plan.before)).toStrictEqual(['ipAccessList']);
  });

  it('drops MySQL on when it is already on and keeps the rename', () => {
    const record = service({ endpoints: [{ protocol: 'mysql', enabled: true }] });
    const plan = mustPlan(record, { mysqlEndpoint: true, name: 'orders-main' });
    expect(plan.update).toStrictEqual({ name: 'orders-main' });
    expect(plan.warnings).toStrictEqual([]);
  });

  it('drops an unchanged release channel, even on a development service', () => {
    const plan = mustPlan(service({ tier: 'development', releaseChannel: 'default' }), {
      releaseChannel: 'default',
      name: 'dev-1',
    });
    expect(plan.update).toStrictEqual({ name: 'dev-1' });
  });

  it('drops an IP addition that is already present with the same description', () => {
    const plan = mustPlan(service(), {
      ipAdd: [{ source: '10.0.0.0/8', description: 'office' }, { source: '192.0.2.1' }],
    });
    expect(plan.update).toStrictEqual({ ipAccessList: { add: [{ source: '192.0.2.1' }] } });
    expect(plan.changes).toHaveLength(1);
  });

  it('drops attaching an endpoint that is already attached', () => {
    const plan = mustPlan(service(), { privateEndpointAttach: ['pe-attached', 'pe-free'] });
    expect(plan.update).toStrictEqual({ privateEndpointIds: { add: ['pe-free'] } });
  });

  it('drops rotating to the key already in use and keeps the rest', () => {
    const plan = mustPlan(service(), { tdeKeyId: 'key-1', releaseChannel: 'fast' });
    expect(plan.update).toStrictEqual({ releaseChannel: 'fast' });
  });

  it('removes a source named twice only once', () => {
    const plan = mustPlan(service(), { ipRemove: ['10.0.0.0/8', ' 10.0.0.0/8 '] });
    expect(plan.update).toStrictEqual({ ipAccessList: { remove: [{ source: '10.0.0.0/8' }] } });
    expect(plan.changes).toHaveLength(1);
  });
});

describe('tags', () => {
  const tagged = service({ tags: [{ key: 'env', value: 'prod' }, { key: 'team', value: 'data' }, { key: 'keep' }] });

  it('adds new tags and replaces a changed value as remove + add, remove first', () => {
    const plan = mustPlan(tagged, {
      tagAdd: [{ key: 'env', value: 'staging' }, { key: 'owner', value: 'ana' }, { key: 'flag' }],
    });
    expect(plan.update).toStrictEqual({
      tags: {
        remove: [{ key: 'env', value: 'prod' }],
        add: [{ key: 'env', value: 'staging' }, { key: 'owner', value: 'ana' }, { key: 'flag' }],
      },
    });
    expect(plan.changes).toStrictEqual([
      { field: 'tags', label: 'Tag', before: 'env=prod', after: 'env=staging' },
      { field: 'tags', label: 'Tag', before: 'absent', after: 'owner=ana' },
      { field: 'tags', label: 'Tag', before: 'absent', after: 'flag' },
    ]);
    expect(plan.before.tags).toStrictEqual([
      { key: 'env', value: 'prod' },
      { key: 'team', value: 'data' },
      { key: 'keep' },
    ]);
  });

  it('drops a tag that is already there with that value, and refuses a request that changes nothing', () => {
    expect(
      mustPlan(tagged, {
        tagAdd: [
          { key: 'env', value: 'prod' },
          { key: 'owner', value: 'ana' },
        ],
      }).update,
    ).toStrictEqual({
      tags: { add: [{ key: 'owner', value: 'ana' }] },
    });
    expect(refused(tagged, { tagAdd: [{ key: 'env', value: 'prod' }] })[0]?.message).toMatch(/changes nothing/);
  });

  it('removes by key, sending the tag as it is, and refuses one that is absent or has another value', () => {
    expect(mustPlan(tagged, { tagRemove: [{ key: 'team' }, { key: 'keep' }] }).update).toStrictEqual({
      tags: { remove: [{ key: 'team', value: 'data' }, { key: 'keep' }] },
    });
    expect(refused(tagged, { tagRemove: [{ key: 'owner' }] })[0]?.message).toBe(
      'The service has no tag owner, so there is nothing to remove.',
    );
    expect(refused(tagged, { tagRemove: [{ key: 'env', value: 'dev' }] })[0]?.message).toBe(
      'Tag env is env=prod, not env=dev; nothing was removed.',
    );
  });

  it('refuses tags outside the official alphabet, keys given twice, and a key both added and removed', () => {
    expect(refused(tagged, { tagAdd: [{ key: 'bad key' }] })[0]?.field).toBe('tagAdd');
    expect(refused(tagged, { tagAdd: [{ key: 'env', value: 'a=b' }] })[0]?.message).toMatch(
      /only letters, digits, dots, hyphens and underscores/,
    );
    expect(refused(tagged, { tagAdd: [{ key: 'k'.repeat(129) }] })[0]?.field).toBe('tagAdd');
    expect(
      refused(tagged, {
        tagAdd: [
          { key: 'a', value: '1' },
          { key: 'a', value: '2' },
        ],
      })[0]?.message,
    ).toBe('Tag a is given twice; give each key once.');
    expect(refused(tagged, { tagAdd: [{ key: 'env', value: 'dev' }], tagRemove: [{ key: 'env' }] })[0]?.message).toBe(
      'Tag env is both added and removed; choose one.',
    );
  });

  it('takes 50 tags at once and refuses 51 with a sentence, since the API takes at most 50 each', () => {
    const tags = (n: number) => Array.from({ length: n }, (_, i) => ({ key: `k${i}`, value: 'v' }));
    expect(mustPlan(tagged, { tagAdd: tags(50) }).update.tags?.add).toHaveLength(50);
    expect(refused(tagged, { tagAdd: tags(51) })[0]?.message).toBe(
      'This request adds 51 tags; the API takes at most 50 at once. Split it.',
    );
  });

  it('is stale when the tags changed meanwhile, and visible once the service shows the edit', () => {
    const plan = mustPlan(tagged, { tagAdd: [{ key: 'env', value: 'staging' }], tagRemove: [{ key: 'keep' }] });
    expect(
      staleFields(
        plan,
        service({
          tags: [
            { key: 'env', value: 'prod' },
            { key: 'team', value: 'data' },
            { key: 'keep', value: '' },
          ],
        }),
      ),
    ).toStrictEqual([]);
    expect(staleFields(plan, service({ tags: [{ key: 'env', value: 'prod' }] }))).toStrictEqual(['tags']);
    expect(planIsVisible(plan, tagged)).toBe(false);
    expect(
      planIsVisible(
        plan,
        service({
          tags: [
            { key: 'team', value: 'data' },
            { key: 'env', value: 'staging' },
          ],
        }),
      ),
    ).toBe(true);
  });
});
