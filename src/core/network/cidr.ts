/**
 * How much of the internet an IP access list admits. A list can open a service to everyone
 * without a single /0 entry (0.0.0.0/1 + 128.0.0.0/1, or four /2s), so the check is on the union
 * of the entries, per address family, not on each entry's spelling.
 */
import { isIP } from 'node:net';

export type Family = 4 | 6;

export interface Block {
  family: Family;
  /** The block's first and last address, as numbers. */
  first: bigint;
  last: bigint;
  prefix: number;
}

const BITS: Record<Family, number> = { 4: 32, 6: 128 };

/** Below these prefix lengths a single entry is "very broad" (16.7 M IPv4 or 2^112 IPv6 addresses). */
export const BROAD_PREFIX: Record<Family, number> = { 4: 8, 6: 16 };

export const FAMILY_NAMES: Record<Family, string> = { 4: 'IPv4', 6: 'IPv6' };

/** An address (a one-address block) or a CIDR block; undefined when it is neither. */
export function parseBlock(source: string): Block | undefined {
  const [address = '', prefixText, ...rest] = source.trim().split('/');
  if (rest.length > 0) return undefined;
  const kind = isIP(address);
  if (kind !== 4 && kind !== 6) return undefined;
  const family: Family = kind;
  const bits = BITS[family];
  const prefix = prefixText === undefined ? bits : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
  if (!(prefix >= 0 && prefix <= bits)) return undefined;
  const value = family === 4 ? ipv4Value(address) : ipv6Value(address);
  const hostBits = BigInt(bits - prefix);
  // The API masks host bits away (10.1.2.3/8 is 10.0.0.0/8), so the block starts at the mask.
  const first = (value >> hostBits) << hostBits;
  return { family, first, last: first + (1n << hostBits) - 1n, prefix };
}

function ipv4Value(address: string): bigint {
  return address.split('.').reduce((acc, octet) => (acc << 8n) + BigInt(Number(octet)), 0n);
}

function ipv6Value(address: string): bigint {
  let text = address;
  // An embedded IPv4 tail (::ffff:1.2.3.4) becomes its two hextets.
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4?.[1]) {
    const n = ipv4Value(v4[1]);
    text = `${text.slice(0, -v4[1].length)}${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const headParts = head === '' ? [] : head.split(':');
  const tailParts = tail === undefined || tail === '' ? [] : tail.split(':');
  const missing = 8 - headParts.length - tailParts.length;
  const parts = [...headParts, ...Array<string>(tail === undefined ? 0 : missing).fill('0'), ...tailParts];
  return parts.reduce((acc, part) => (acc << 16n) + BigInt(Number.parseInt(part, 16)), 0n);
}

/** The families whose every address the sources admit together. */
export function coveredFamilies(sources: Iterable<string>): Family[] {
  const blocks = [...sources].map(parseBlock).filter((b): b is Block => b !== undefined);
  return ([4, 6] as const).filter((family) =>
    coversFamily(
      blocks.filter((b) => b.family === family),
      family,
    ),
  );
}

function coversFamily(blocks: Block[], family: Family): boolean {
  const sorted = [...blocks].sort((a, b) => (a.first < b.first ? -1 : a.first > b.first ? 1 : 0));
  let next = 0n; // the first address not yet covered
  for (const block of sorted) {
    if (block.first > next) return false;
    if (block.last + 1n > next) next = block.last + 1n;
  }
  return next === 1n << BigInt(BITS[family]);
}

/** True for a /0 of either family: one entry that admits the whole family. */
export function isWholeFamily(source: string): boolean {
  return parseBlock(source)?.prefix === 0;
}

/** A single entry broader than BROAD_PREFIX but not a whole family (those are reported as open). */
export function isVeryBroad(source: string): boolean {
  const block = parseBlock(source);
  return block !== undefined && block.prefix > 0 && block.prefix < BROAD_PREFIX[block.family];
}

/** The sources (as given) that belong to a family. */
export function sourcesOfFamily(sources: Iterable<string>, family: Family): string[] {
  return [...sources].filter((source) => parseBlock(source)?.family === family);
}

/**
 * The sources of a family that no other source contains (10.0.0.0/8 disappears next to
 * 0.0.0.0/1): what a person needs to read to see why the union covers what it covers.
 */
export function outermostSources(sources: Iterable<string>, family: Family): string[] {
  const blocks = [...sources].flatMap((source) => {
    const block = parseBlock(source);
    return block?.family === family ? [{ source, block }] : [];
  });
  return blocks
    .filter(
      ({ block }, i) =>
        !blocks.some(
          (other, j) =>
            j !== i &&
            other.block.first <= block.first &&
            other.block.last >= block.last &&
            (other.block.prefix < block.prefix || j < i),
        ),
    )
    .map(({ source }) => source);
}
