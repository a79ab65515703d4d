import { describe, expect, it } from 'vitest';
import { sharedChanges } from '../../../src/core/change/overlap.js';
import { mustPlan, service } from '../fixtures.js';

describe('sharedChanges: what two open requests of one service both change', () => {
  const record = service({ tags: [{ key: 'env', value: 'prod' }] });

  it('a field both change, by its label', () => {
    expect(sharedChanges(mustPlan(record, { name: 'a' }), mustPlan(record, { name: 'b' }))).toStrictEqual(['Name']);
    expect(sharedChanges(mustPlan(record, { name: 'a' }), mustPlan(record, { tdeKeyId: 'k' }))).toStrictEqual([]);
  });

  it('in a set, only the same entries', () => {
    const add = (source: string) => mustPlan(record, { ipAdd: [{ source }] });
    expect(sharedChanges(add('192.0.2.1'), add('192.0.2.2'))).toStrictEqual([]);
    expect(sharedChanges(add('192.0.2.1'), add('192.0.2.1'))).toStrictEqual(['IP access 192.0.2.1']);
    const tag = (key: string) => mustPlan(record, { tagAdd: [{ key, value: 'x' }] });
    expect(sharedChanges(tag('team'), tag('owner'))).toStrictEqual([]);
    expect(sharedChanges(tag('team'), tag('team'))).toStrictEqual(['Tag team']);
  });

  it('memory per replica against replicas: the total memory both move', () => {
    const memory = mustPlan(record, { replicaMemoryGb: { min: 16, max: 32 } });
    const replicas = mustPlan(record, { replicas: { min: 5, max: 5 } });
    expect(sharedChanges(memory, replicas)).toStrictEqual(['the total memory']);
  });
});
