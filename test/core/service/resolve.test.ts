import { describe, expect, it } from 'vitest';
import type { ServiceRecord } from '../../../src/core/service/schema.js';
import { resolveService, type Resolution } from '../../../src/core/service/resolve.js';
import { service } from '../fixtures.js';

const svc = (id: string, name: string): ServiceRecord => service({ id, name });

const services = [
  svc('11111111-aaaa-4000-8000-000000000001', 'orders-prod'),
  svc('22222222-bbbb-4000-8000-000000000002', 'orders-staging'),
  svc('33333333-cccc-4000-8000-000000000003', 'Analytics'),
  svc('44444444-dddd-4000-8000-000000000004', 'shared'),
  svc('55555555-eeee-4000-8000-000000000005', 'shared'),
  svc('33333399-ffff-4000-8000-000000000006', 'reports'),
];

function found(resolution: Resolution): string {
  if (!resolution.ok) throw new Error(`expected a service, got ${resolution.reason}`);
  return resolution.service.id;
}

function missed(resolution: Resolution): Exclude<Resolution, { ok: true }> {
  if (resolution.ok) throw new Error(`expected no single service, got ${resolution.service.id}`);
  return resolution;
}

describe('resolveService', () => {
  it('finds a service by its full id', () => {
    expect(found(resolveService(services, '22222222-bbbb-4000-8000-000000000002'))).toBe(
      '22222222-bbbb-4000-8000-000000000002',
    );
  });

  it('finds a service by its exact name', () => {
    expect(found(resolveService(services, 'orders-prod'))).toBe('11111111-aaaa-4000-8000-000000000001');
  });

  it('ignores surrounding spaces in the query', () => {
    expect(found(resolveService(services, '  orders-prod '))).toBe('11111111-aaaa-4000-8000-000000000001');
  });

  it('finds a service by its name in another case', () => {
    expect(found(resolveService(services, 'ANALYTICS'))).toBe('33333333-cccc-4000-8000-000000000003');
  });

  it('prefers the exact name over a case-insensitive match', () => {
    const list = [
      svc('aaaaaaaa-0000-4000-8000-000000000001', 'Orders'),
      svc('bbbbbbbb-0000-4000-8000-000000000002', 'orders'),
    ];
    expect(found(resolveService(list, 'orders'))).toBe('bbbbbbbb-0000-4000-8000-000000000002');
  });

  it('finds a service by an id prefix of 6 or more characters, in any case', () => {
    expect(found(resolveService(services, '222222'))).toBe('22222222-bbbb-4000-8000-000000000002');
    expect(found(resolveService(services, '22222222-BBBB'))).toBe('22222222-bbbb-4000-8000-000000000002');
  });

  it('does not guess from an id prefix shorter than 6 characters', () => {
    const resolution = missed(resolveService(services, '22222'));
    expect(resolution.reason).toBe('not-found');
  });

  it('answers an ambiguous id prefix with the candidates', () => {
    const resolution = missed(resolveService(services, '333333'));
    expect(resolution.reason).toBe('ambiguous');
    expect(resolution.candidates.map((s) => s.name).sort()).toStrictEqual(['Analytics', 'reports']);
  });

  it('answers a name shared by two services with both, never guessing', () => {
    const resolution = missed(resolveService(services, 'shared'));
    expect(resolution).toMatchObject({ reason: 'ambiguous', query: 'shared' });
    expect(resolution.candidates.map((s) => s.id)).toStrictEqual([
      '44444444-dddd-4000-8000-000000000004',
      '55555555-eeee-4000-8000-000000000005',
    ]);
  });

  it('answers an unknown name with similar names', () => {
    const resolution = missed(resolveService(services, 'orders'));
    expect(resolution).toMatchObject({ reason: 'not-found', query: 'orders' });
    expect(resolution.candidates.map((s) => s.name)).toStrictEqual(['orders-prod', 'orders-staging']);
  });

  it('suggests a service whose name is inside the query', () => {
    const resolution = missed(resolveService(services, 'orders-prod-eu'));
    expect(resolution.candidates.map((s) => s.name)).toStrictEqual(['orders-prod']);
  });

  it('answers with no candidates when nothing is similar', () => {
    const resolution = missed(resolveService(services, 'zzz'));
    expect(resolution).toMatchObject({ reason: 'not-found', candidates: [] });
  });

  it('offers at most 5 candidates', () => {
    const many = Array.from({ length: 12 }, (_, i) =>
      svc(`${String(i).padStart(8, '0')}-0000-4000-8000-000000000000`, `orders-${i}`),
    );
    expect(missed(resolveService(many, 'orders')).candidates).toHaveLength(5);
    const same = many.map((s) => ({ ...s, name: 'same' }));
    expect(missed(resolveService(same, 'same'))).toMatchObject({ reason: 'ambiguous' });
    expect(missed(resolveService(same, 'same')).candidates).toHaveLength(5);
  });

  it('does not suggest a service with an empty name for every unknown query', () => {
    const list = [...services, svc('66666666-0000-4000-8000-000000000006', '')];
    expect(missed(resolveService(list, 'zzz')).candidates).toStrictEqual([]);
  });
});
