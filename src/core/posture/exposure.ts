/**
 * What an IP access list opens, in words: the families it admits entirely (by one /0 or by the
 * union of several entries) and the single entries that are very broad. Change requests and the
 * posture check read the same answer, so neither can be sidestepped by splitting a /0.
 */
import {
  coveredFamilies,
  FAMILY_NAMES,
  isVeryBroad,
  isWholeFamily,
  outermostSources,
  parseBlock,
  sourcesOfFamily,
  type Family,
} from '../network/cidr.js';

/** More pieces than this are counted rather than listed, so a warning stays one readable line. */
const MAX_NAMED = 8;

export interface OpenFamily {
  family: Family;
  /** The entries of that family that admit it together (one /0, or the pieces of a union). */
  sources: string[];
  /** The entries in words: "0.0.0.0/0", "0.0.0.0/1 + 128.0.0.0/1" or "its 40 IPv4 entries". */
  named: string;
  /** One entry admits the family by itself (a /0), rather than a union of several. */
  whole: boolean;
}

export interface IpExposure {
  open: OpenFamily[];
  /** Entries shorter than /8 (IPv4) or /16 (IPv6) in a family that is not already open. */
  broad: Array<{ source: string; family: Family }>;
}

export function ipExposure(sources: readonly string[]): IpExposure {
  const open = coveredFamilies(sources).map((family) => openFamily(sources, family));
  const openFamilies = new Set(open.map((o) => o.family));
  const broad = sources.flatMap((source) => {
    const family = parseBlock(source)?.family;
    return family !== undefined && !openFamilies.has(family) && isVeryBroad(source) ? [{ source, family }] : [];
  });
  return { open, broad };
}

function openFamily(sources: readonly string[], family: Family): OpenFamily {
  const whole = sourcesOfFamily(sources, family).filter(isWholeFamily);
  if (whole.length > 0) return { family, sources: whole, named: whole.join(' and '), whole: true };
  const pieces = outermostSources(sources, family);
  const named =
    pieces.length <= MAX_NAMED ? pieces.join(' + ') : `its ${pieces.length} ${FAMILY_NAMES[family]} entries`;
  return { family, sources: pieces, named, whole: false };
}
