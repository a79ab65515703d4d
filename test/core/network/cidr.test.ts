import { describe, expect, it } from 'vitest';
import { coveredFamilies, isVeryBroad, isWholeFamily, parseBlock } from '../../../src/core/network/cidr.js';

describe('parseBlock', () => {
  it('masks host bits as the API does', () => {
    expect(parseBlock('10.1.2.3/8')).toStrictEqual({ family: 4, first: 0x0a000000n, last: 0x0affffffn, prefix: 8 });
  });

  it('reads a bare address as a one-address block', () => {
    expect(parseBlock('203.0.113.7')).toMatchObject({
      family: 4,
      prefix: 32,
      first: parseBlock('203.0.113.7/32')?.first,
    });
    expect(parseBlock('2001:db8::1')).toMatchObject({ family: 6, prefix: 128 });
  });

  it('reads compressed and IPv4-tailed IPv6', () => {
    expect(parseBlock('::/1')?.last).toBe((1n << 127n) - 1n);
    expect(parseBlock('8000::/1')?.first).toBe(1n << 127n);
    expect(parseBlock('::ffff:1.2.3.4')?.first).toBe(0xffff01020304n);
  });

  it.each(['office', '10.0.0.0/33', '::/129', '10.0.0.0/8/8', '10.0.0.0/x', ''])('rejects %j', (text) => {
    expect(parseBlock(text)).toBeUndefined();
  });
});

describe('coveredFamilies', () => {
  it.each([
    [['0.0.0.0/0'], [4]],
    [['10.0.0.0/0'], [4]],
    [['0.0.0.0/1', '128.0.0.0/1'], [4]],
    [['128.0.0.0/1', '0.0.0.0/1', '10.0.0.0/8'], [4]],
    [['0.0.0.0/2', '64.0.0.0/2', '128.0.0.0/2', '192.0.0.0/2'], [4]],
    [['0.0.0.0/2', '64.0.0.0/2', '128.0.0.0/1'], [4]],
    [['::/1', '8000::/1'], [6]],
    [
      ['0.0.0.0/1', '128.0.0.0/1', '::/0'],
      [4, 6],
    ],
    [['0.0.0.0/1', '128.0.0.0/2'], []],
    [['0.0.0.0/1', '128.0.0.0/1', '::/1'], [4]],
    [['0.0.0.0/2', '64.0.0.0/2', '192.0.0.0/2'], []],
    [['10.0.0.0/8'], []],
    [[], []],
  ])('%j covers %j', (sources, families) => {
    expect(coveredFamilies(sources)).toStrictEqual(families);
  });

  it('sees a union of 256 /8s as the whole IPv4 space, and one missing /8 as not', () => {
    const all = Array.from({ length: 256 }, (_, i) => `${i}.0.0.0/8`);
    expect(coveredFamilies(all)).toStrictEqual([4]);
    expect(coveredFamilies(all.filter((s) => s !== '77.0.0.0/8'))).toStrictEqual([]);
  });
});

describe('breadth of a single entry', () => {
  it.each([
    ['0.0.0.0/0', true, false],
    ['1.0.0.0/7', false, true],
    ['0.0.0.0/1', false, true],
    ['10.0.0.0/8', false, false],
    ['2000::/3', false, true],
    ['2001::/15', false, true],
    ['2001:db8::/16', false, false],
    ['::/0', true, false],
  ])('%s: whole family %s, very broad %s', (source, whole, broad) => {
    expect(isWholeFamily(source)).toBe(whole);
    expect(isVeryBroad(source)).toBe(broad);
  });
});
