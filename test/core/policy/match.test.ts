import { describe, expect, it } from 'vitest';
import { matchReasons } from '../../../src/core/policy/match.js';
import { planRisks, requestFacts } from '../../../src/core/policy/facts.js';
import { mustPlan, service } from '../fixtures.js';
import { facts, side } from './examples.js';

describe('matchReasons: tags', () => {
  it('needs every listed tag with that value', () => {
    expect(matchReasons({ tags: { env: 'prod' } }, facts({ tags: { env: 'prod', team: 'a' } }))).toEqual(['env=prod']);
    expect(matchReasons({ tags: { env: 'prod', team: 'a' } }, facts({ tags: { env: 'prod', team: 'a' } }))).toEqual([
      'env=prod',
      'team=a',
    ]);
    expect(
      matchReasons({ tags: { env: 'prod', team: 'b' } }, facts({ tags: { env: 'prod', team: 'a' } })),
    ).toBeUndefined();
    expect(matchReasons({ tags: { env: 'prod' } }, facts({ tags: { env: 'production' } }))).toBeUndefined();
    expect(matchReasons({ tags: { env: 'prod' } }, facts({ tags: {} }))).toBeUndefined();
  });

  it('"*" accepts any value, even an empty one, but not an absent tag; the reason names the value', () => {
    expect(matchReasons({ tags: { team: '*' } }, facts({ tags: { team: 'payments' } }))).toEqual(['team=payments']);
    expect(matchReasons({ tags: { team: '*' } }, facts({ tags: { team: '' } }))).toEqual(['team=']);
    expect(matchReasons({ tags: { team: '*' } }, facts({ tags: { env: 'prod' } }))).toBeUndefined();
  });

  it('matches the service as it is OR as it would be after the change', () => {
    const removing = facts({ tags: { env: 'prod' }, tagsAfter: {} });
    expect(matchReasons({ tags: { env: 'prod' } }, removing)).toEqual(['env=prod before the change']);
    const adding = facts({ tags: {}, tagsAfter: { env: 'prod' } });
    expect(matchReasons({ tags: { env: 'prod' } }, adding)).toEqual(['env=prod after the change']);
    const moving = facts({ tags: { env: 'dev' }, tagsAfter: { env: 'prod' } });
    expect(matchReasons({ tags: { env: '*' } }, moving)).toEqual(['env=dev before the change', 'env=prod after it']);
    expect(matchReasons({ tags: { env: 'staging' } }, moving)).toBeUndefined();
  });

  it('all tags must hold on one side: half before and half after is not a match', () => {
    const split = facts({ tags: { env: 'prod' }, tagsAfter: { team: 'a' } });
    expect(matchReasons({ tags: { env: 'prod', team: 'a' } }, split)).toBeUndefined();
  });
});

describe('matchReasons: services, changes, risks', () => {
  it('names a service by name or id, before or after a rename', () => {
    expect(matchReasons({ services: ['orders'] }, facts())).toEqual(['service orders']);
    expect(matchReasons({ services: ['svc-1'] }, facts())).toEqual(['service svc-1']);
    expect(matchReasons({ services: ['other', 'orders'] }, facts())).toEqual(['service orders']);
    expect(matchReasons({ services: ['Orders'] }, facts())).toBeUndefined();
    const renamed = { ...facts(), after: side({}, 'orders-v2') };
    expect(matchReasons({ services: ['orders-v2'] }, renamed)).toEqual(['service orders-v2 after the change']);
    expect(matchReasons({ services: ['orders'] }, renamed)).toEqual(['service orders before the change']);
  });

  it('changes and risks match when the request has any of the listed ones', () => {
    const f = facts({ changes: ['name', 'ip-access'], risks: ['world-open'] });
    expect(matchReasons({ changes: ['ip-access', 'tags'] }, f)).toEqual(['changes ip-access']);
    expect(matchReasons({ changes: ['tags'] }, f)).toBeUndefined();
    expect(matchReasons({ risks: ['broad-ip', 'world-open'] }, f)).toEqual(['risk world-open']);
    expect(matchReasons({ risks: ['mysql-on'] }, f)).toBeUndefined();
  });

  it('every given key must match; an empty match matches every request', () => {
    const f = facts({ tags: { env: 'prod' }, changes: ['ip-access'], risks: ['world-open'] });
    expect(matchReasons({ tags: { env: 'prod' }, changes: ['ip-access'], risks: ['world-open'] }, f)).toEqual([
      'env=prod',
      'changes ip-access',
      'risk world-open',
    ]);
    expect(matchReasons({ tags: { env: 'prod' }, changes: ['name'] }, f)).toBeUndefined();
    expect(matchReasons({ tags: { env: 'dev' }, risks: ['world-open'] }, f)).toBeUndefined();
    expect(matchReasons({ services: ['x'], tags: { env: 'prod' } }, f)).toBeUndefined();
    expect(matchReasons({}, f)).toEqual(['every request']);
  });
});

describe('requestFacts from a plan', () => {
  it('names the kinds a plan touches and keeps the tags of the service', () => {
    const svc = service({ tags: [{ key: 'env', value: 'prod' }] });
    const plan = mustPlan(svc, {
      name: 'orders-next',
      ipAdd: [{ source: '192.0.2.1' }],
      mysqlEndpoint: true,
      releaseChannel: 'fast',
      privateEndpointAttach: ['pe-free'],
      tdeKeyId: 'key-2',
    });
    const f = requestFacts(svc, plan);
    expect([...f.changes].sort()).toEqual([
      'encryption-key',
      'ip-access',
      'mysql-endpoint',
      'name',
      'private-endpoints',
      'release-channel',
    ]);
    expect(f.before.name).toBe('orders-prod');
    expect(f.after.name).toBe('orders-next');
    expect(f.before.tags.get('env')).toBe('prod');
    expect(f.risks).toEqual(['mysql-on']);
  });

  it('finds the risks: world-open, broad-ip, last-ip-removed, mysql-on', () => {
    const svc = service();
    expect(planRisks(mustPlan(svc, { ipAdd: [{ source: '0.0.0.0/0' }] }))).toEqual(['world-open', 'broad-ip']);
    expect(planRisks(mustPlan(svc, { ipAdd: [{ source: '::/0' }] }))).toEqual(['world-open', 'broad-ip']);
    expect(planRisks(mustPlan(svc, { ipAdd: [{ source: '12.0.0.0/7' }] }))).toEqual(['broad-ip']);
    expect(planRisks(mustPlan(svc, { ipAdd: [{ source: '12.0.0.0/8' }] }))).toEqual([]);
    expect(planRisks(mustPlan(svc, { ipAdd: [{ source: '2001:db8::/15' }] }))).toEqual(['broad-ip']);
    expect(planRisks(mustPlan(svc, { ipAdd: [{ source: '2001:db8::/16' }] }))).toEqual([]);
    expect(planRisks(mustPlan(svc, { ipRemove: ['10.0.0.0/8', '203.0.113.7/32'] }))).toEqual(['last-ip-removed']);
    expect(planRisks(mustPlan(svc, { ipRemove: ['10.0.0.0/8'] }))).toEqual([]);
    expect(planRisks(mustPlan(svc, { mysqlEndpoint: true }))).toEqual(['mysql-on']);
    expect(planRisks(mustPlan(svc, { name: 'x' }))).toEqual([]);
  });
});
