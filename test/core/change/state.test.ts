import { describe, expect, it } from 'vitest';
import { currentState, mayLeaveDefaultChannel, mysqlEnabled, staleFields } from '../../../src/core/change/state.js';
import type { ChangeIntent, TouchedField } from '../../../src/core/change/types.js';
import { mustPlan, service } from '../fixtures.js';

describe('mysqlEnabled', () => {
  it('is off when no MySQL endpoint is listed', () => {
    expect(mysqlEnabled(service())).toBe(false);
    expect(mysqlEnabled(service({ endpoints: undefined }))).toBe(false);
  });

  it('is on when a MySQL endpoint is listed without an enabled flag', () => {
    expect(mysqlEnabled(service({ endpoints: [{ protocol: 'mysql', host: 'h', port: 3306 }] }))).toBe(true);
  });

  it('is off when the MySQL endpoint says enabled: false', () => {
    expect(mysqlEnabled(service({ endpoints: [{ protocol: 'mysql', enabled: false }] }))).toBe(false);
  });
});

describe('mayLeaveDefaultChannel', () => {
  it.each([
    ['production', true],
    [undefined, true],
    [null, true],
    ['', true],
    ['dedicated_high_mem', true],
    ['dedicated_standard', true],
    ['development', false],
  ] as const)('tier %j → %s', (tier, expected) => {
    expect(mayLeaveDefaultChannel(service({ tier }))).toBe(expected);
  });

  it('treats a record without a tier field like production, as the Terraform provider does', () => {
    const record = service();
    delete record.tier;
    expect(mayLeaveDefaultChannel(record)).toBe(true);
  });
});

describe('currentState', () => {
  it('reads absent fields as empty or null', () => {
    const record = service({
      ipAccessList: undefined,
      privateEndpointIds: undefined,
      releaseChannel: undefined,
      transparentDataEncryptionKeyId: undefined,
    });
    expect(currentState(record)).toMatchObject({
      ipAccessList: [],
      privateEndpointIds: [],
      releaseChannel: null,
      tdeKeyId: null,
    });
  });

  it('gives entries without a description an empty one', () => {
    expect(currentState(service({ ipAccessList: [{ source: '10.0.0.0/8' }] })).ipAccessList).toStrictEqual([
      { source: '10.0.0.0/8', description: '' },
    ]);
  });
});

describe('staleFields: has someone else changed what this request touches?', () => {
  it('is empty when the service is as it was', () => {
    const plan = mustPlan(service(), {
      name: 'orders-main',
      ipAdd: [{ source: '192.0.2.1' }],
      mysqlEndpoint: true,
      privateEndpointAttach: ['pe-free'],
      tdeKeyId: 'key-2',
      releaseChannel: 'fast',
    });
    expect(staleFields(plan, service())).toStrictEqual([]);
  });

  const othersChanges: Array<[TouchedField, Record<string, unknown>, ChangeIntent]> = [
    ['name', { name: 'orders-renamed' }, { name: 'orders-main' }],
    ['releaseChannel', { releaseChannel: 'slow' }, { releaseChannel: 'fast' }],
    ['mysqlEndpoint', { endpoints: [{ protocol: 'mysql' }] }, { mysqlEndpoint: true }],
    [
      'ipAccessList',
      {
        ipAccessList: [
          { source: '10.0.0.0/8', description: 'office' },
          { source: '192.0.2.1', description: 'someone else' },
        ],
      },
      { ipAdd: [{ source: '192.0.2.1' }] },
    ],
    [
      'ipAccessList',
      {
        ipAccessList: [
          { source: '10.0.0.0/8', description: 'office' },
          { source: '203.0.113.7/32', description: 'vpn, re-described' },
        ],
      },
      { ipRemove: ['203.0.113.7/32'] },
    ],
    ['privateEndpointIds', { privateEndpointIds: ['pe-1', 'pe-free'] }, { privateEndpointAttach: ['pe-free'] }],
    ['tdeKeyId', { transparentDataEncryptionKeyId: 'key-9' }, { tdeKeyId: 'key-2' }],
  ];

  it.each(othersChanges)('lists %s when someone else changed it', (field, otherChange, intent) => {
    const plan = mustPlan(service(), intent);
    expect(staleFields(plan, service(otherChange))).toStrictEqual([field]);
  });

  it('ignores changes to fields the request does not touch', () => {
    const plan = mustPlan(service(), { name: 'orders-main' });
    const changedElsewhere = service({
      releaseChannel: 'fast',
      endpoints: [{ protocol: 'mysql' }],
      ipAccessList: [{ source: '0.0.0.0/0' }],
      privateEndpointIds: [],
      transparentDataEncryptionKeyId: 'key-9',
      numReplicas: 5,
    });
    expect(staleFields(plan, changedElsewhere)).toStrictEqual([]);
  });

  it('lists exactly the touched fields that changed, and only those', () => {
    const plan = mustPlan(service(), { name: 'orders-main', ipAdd: [{ source: '192.0.2.1' }], tdeKeyId: 'key-2' });
    const changed = service({
      name: 'orders-renamed',
      transparentDataEncryptionKeyId: 'key-9',
      releaseChannel: 'fast',
    });
    expect(staleFields(plan, changed).sort()).toStrictEqual(['name', 'tdeKeyId']);
  });

  it('in a set, compares only the entries the request touches: other entries may come and go', () => {
    const ipAdd = mustPlan(service(), { ipAdd: [{ source: '192.0.2.1', description: 'bob' }] });
    const otherAdded = service({
      ipAccessList: [
        { source: '10.0.0.0/8', description: 'office' },
        { source: '203.0.113.7/32', description: 'vpn' },
        { source: '198.51.100.9', description: 'alice' },
      ],
    });
    expect(staleFields(ipAdd, otherAdded)).toStrictEqual([]);
    const tagged = service({ tags: [{ key: 'env', value: 'prod' }] });
    const tagAdd = mustPlan(tagged, { tagAdd: [{ key: 'team', value: 'data' }] });
    expect(staleFields(tagAdd, service({ tags: [{ key: 'env', value: 'staging' }] }))).toStrictEqual([]);
    expect(staleFields(tagAdd, service({ tags: [{ key: 'team', value: 'ops' }] }))).toStrictEqual(['tags']);
  });

  it('is stale when the list as it is now gives the change a risk it did not show (the last entry removed)', () => {
    const remove = mustPlan(service(), { ipRemove: ['10.0.0.0/8'] });
    expect(
      staleFields(remove, service({ ipAccessList: [{ source: '10.0.0.0/8', description: 'office' }] })),
    ).toStrictEqual(['ipAccessList']);
  });

  it('does not care about the order of the IP access list', () => {
    const plan = mustPlan(service(), { ipAdd: [{ source: '192.0.2.1' }] });
    const reordered = service({
      ipAccessList: [
        { source: '203.0.113.7/32', description: 'vpn' },
        { source: '10.0.0.0/8', description: 'office' },
      ],
    });
    expect(staleFields(plan, reordered)).toStrictEqual([]);
  });

  it('treats a missing description and an empty one as the same', () => {
    const record = service({ ipAccessList: [{ source: '10.0.0.0/8' }] });
    const plan = mustPlan(record, { ipAdd: [{ source: '192.0.2.1' }] });
    expect(staleFields(plan, service({ ipAccessList: [{ source: '10.0.0.0/8', description: '' }] }))).toStrictEqual([]);
  });

  it('does not care about the order of private endpoint ids', () => {
    const record = service({
      privateEndpointIds: ['pe-a', 'pe-b'],
      availablePrivateEndpointIds: ['pe-a', 'pe-b', 'pe-c'],
    });
    const plan = mustPlan(record, { privateEndpointAttach: ['pe-c'] });
    expect(staleFields(plan, { ...record, privateEndpointIds: ['pe-b', 'pe-a'] })).toStrictEqual([]);
  });

  it('sees a release channel that disappeared from the record as a change', () => {
    const plan = mustPlan(service(), { releaseChannel: 'fast' });
    expect(staleFields(plan, service({ releaseChannel: undefined }))).toStrictEqual(['releaseChannel']);
  });

  it('sees the service already carrying the requested change as stale (it no longer looks as reviewed)', () => {
    const plan = mustPlan(service(), { name: 'orders-main' });
    expect(staleFields(plan, service({ name: 'orders-main' }))).toStrictEqual(['name']);
  });
});
