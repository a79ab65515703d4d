/** A seeded random generator: a failing case names its seed and can be replayed exactly. */

/** mulberry32: small, fast, and the same sequence for the same seed on every machine. */
export function prng(seed: number): Rng {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (max: number) => Math.floor(next() * max);
  return {
    next,
    int,
    chance: (p) => next() < p,
    pick: <T>(items: readonly T[]): T => {
      const item = items[int(items.length)];
      if (item === undefined) throw new Error('pick from an empty list');
      return item;
    },
  };
}

export interface Rng {
  next: () => number;
  int: (max: number) => number;
  chance: (p: number) => boolean;
  pick: <T>(items: readonly T[]) => T;
}
