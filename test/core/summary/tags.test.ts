import { describe, expect, it } from 'vitest';
import { filterServices, matchesTagFilters } from '../../../src/core/summary/index.js';
import { service } from '../fixtures.js';

const tagged = (tags: Array<{ key: string; value?: string }>) => service({ tags });

describe('matchesTagFilters', () => {
  const prodData = tagged([
    { key: 'env', value: 'prod' },
    { key: 'team', value: 'data' },
  ]);

  it('keeps every service when there is no filter', () => {
    expect(matchesTagFilters(tagged([]), [])).toBe(true);
  });

  it('tag:KEY needs only the tag to be present, whatever its value', () => {
    expect(matchesTagFilters(prodData, ['tag:env'])).toBe(true);
    expect(matchesTagFilters(tagged([{ key: 'env' }]), ['tag:env'])).toBe(true);
    expect(matchesTagFilters(prodData, ['tag:owner'])).toBe(false);
  });

  it('tag:KEY=VALUE needs that exact value', () => {
    expect(matchesTagFilters(prodData, ['tag:env=prod'])).toBe(true);
    expect(matchesTagFilters(prodData, ['tag:env=staging'])).toBe(false);
    expect(matchesTagFilters(prodData, ['tag:env=pro'])).toBe(false);
    expect(matchesTagFilters(prodData, ['tag:team=prod'])).toBe(false);
  });

  it('matches nothing with a filter outside the official tag alphabet, which no tag can carry', () => {
    const service = tagged([{ key: 'expr', value: 'a=b=c' }]);
    expect(matchesTagFilters(service, ['tag:expr=a=b=c'])).toBe(false);
    expect(matchesTagFilters(tagged([{ key: 'expr', value: 'a.b-c' }]), ['tag:expr=a.b-c'])).toBe(true);
    expect(matchesTagFilters(service, ['tag:expr=a'])).toBe(false);
  });

  it('tag:KEY= matches an empty value, and a tag sent without a value reads as empty', () => {
    expect(matchesTagFilters(tagged([{ key: 'flag', value: '' }]), ['tag:flag='])).toBe(true);
    expect(matchesTagFilters(tagged([{ key: 'flag' }]), ['tag:flag='])).toBe(true);
    expect(matchesTagFilters(tagged([{ key: 'flag', value: 'x' }]), ['tag:flag='])).toBe(false);
  });

  it('combines several filters with AND', () => {
    expect(matchesTagFilters(prodData, ['tag:env=prod', 'tag:team=data'])).toBe(true);
    expect(matchesTagFilters(prodData, ['tag:env=prod', 'tag:team=web'])).toBe(false);
  });

  it('matches nothing for a malformed filter instead of silently widening to the whole organization', () => {
    expect(matchesTagFilters(prodData, ['env=prod'])).toBe(false);
    expect(matchesTagFilters(prodData, ['tag:'])).toBe(false);
  });

  it('a service without tags matches only the empty filter list', () => {
    const bare = service({ tags: undefined });
    expect(matchesTagFilters(bare, [])).toBe(true);
    expect(matchesTagFilters(bare, ['tag:env'])).toBe(false);
  });
});

describe('filterServices', () => {
  it('lets one unfiltered list serve summaries with different filters', () => {
    const all = [
      service({ id: 'a', name: 'a', tags: [{ key: 'env', value: 'prod' }] }),
      service({ id: 'b', name: 'b', tags: [{ key: 'env', value: 'dev' }] }),
      service({ id: 'c', name: 'c', tags: [] }),
    ];
    expect(filterServices(all, ['tag:env=prod']).map((s) => s.id)).toStrictEqual(['a']);
    expect(filterServices(all, ['tag:env']).map((s) => s.id)).toStrictEqual(['a', 'b']);
    expect(filterServices(all, []).map((s) => s.id)).toStrictEqual(['a', 'b', 'c']);
  });
});
