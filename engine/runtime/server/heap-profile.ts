/**
 * The Manager's V8 heap settings, applied once as it starts. Its live heap is small (the
 * registry's tables, sessions, tickets, the request ring: a few tens of MiB) and everything a
 * request allocates dies with it; V8's defaults let the young generation double up to 3 x 16 MiB
 * under allocation pressure and size the old generation for speed, which held a 64-client soak
 * some 70 MiB above its live heap. A young generation that does not grow, and heuristics that
 * favour size, keep its resident memory within the tiers plus 64 MiB. Only the growth policy is
 * set (the flags V8 reads while it runs); nothing limits how large the heap may become.
 */
import { setFlagsFromString } from 'node:v8';

export const MANAGER_V8_FLAGS = ['--semi-space-growth-factor=1', '--optimize-for-size'] as const;

let applied = false;

export function applyManagerHeapProfile(): void {
  if (applied) return;
  applied = true;
  for (const flag of MANAGER_V8_FLAGS) setFlagsFromString(flag);
}
