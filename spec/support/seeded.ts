/**
 * A seeded pseudo-random source (mulberry32) for specs and benches that generate ledgers and
 * registries: the same seed gives the same sequence on every machine.
 */
export function seeded(seed: number): { random: () => number; pick: <T>(list: readonly T[]) => T } {
  let a = seed;
  const random = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  return { random, pick };
}
