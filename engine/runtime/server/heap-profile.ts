/**
 * The Manager's V8 heap settings.
 *
 * The young generation is fixed at 8 MiB a semi-space. A lookup runs its ticket through two
 * xstate transitions (OPEN, then RELEASE or CONSUME), and xstate's statechart algorithm builds
 * its sets and snapshots anew at every transition: about 8 KiB each, some 29 KiB a lookup with
 * the frame and the reply. In V8's 1 MiB start-size young generation that was a scavenge every
 * ~35 lookups; each costs 0.3-0.5 ms, so at 10,000 lookups/s several lookups in every hundred
 * waited behind one and the p99 ran 2-3x the bare echo's. With 8 MiB it is a scavenge every
 * ~290 lookups (spec/bench/results/runtime-gc-dev-vm.txt). A semi-space's size is read only when
 * V8 starts, so it is a node command-line flag: MANAGER_NODE_FLAGS, which the `orbitkv` bin's
 * first line and every Manager the project spawns carry; a Manager started without them says so
 * (`heap-flags-missing`) and serves with what it has.
 *
 * What V8 reads while it runs is set here, once, as the Manager starts: the young generation
 * grows at most the one step V8 takes past its start size (8 -> 16 MiB as V8 reports it; without
 * the node flags 1 -> 2 MiB, where V8 alone would go on to 32), and the old
 * generation is let grow by 10 % of what survived its last full collection, not V8's default of
 * up to 4x: everything a request allocates dies young, and the old generation holds tables
 * bounded by the flags. `--optimize-for-size`, which this profile set before, kept the heap as
 * small, but it also slowed the compiled lookup path by about a third (xstate's two transitions
 * 15.0 -> 19.5 us on the dev VM). Nothing here limits how large the heap may become.
 */
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

/** The young generation's semi-space, in MiB (V8's unit for these flags). */
export const YOUNG_SEMI_SPACE_MIB = 8;

/**
 * Flags node must start with: read only at V8's start (bin/orbitkv.js carries them on its first
 * line). Allocation-site pretenuring is off: V8 otherwise marks a site whose objects once survived
 * (start-up, a burst of saves) and allocates its later objects straight into the old generation,
 * where a lookup's short-lived ones then wait for a mark-compact. At 10,000 lookups/s on the dev
 * VM it halved what was promoted (22.2 -> 13.5 MB in the same window) and the mark-compacts (8 ->
 * 3); on an H100 host the lookup p99 fell from 125-228 to 94-136 us in three alternated rounds
 * (spec/bench/results/runtime-h100-host.txt).
 */
export const MANAGER_NODE_FLAGS = [`--min-semi-space-size=${YOUNG_SEMI_SPACE_MIB}`, `--max-semi-space-size=${YOUNG_SEMI_SPACE_MIB}`, '--no-allocation-site-pretenuring'] as const;

/** Flags V8 reads while it runs, set by the Manager itself. */
export const MANAGER_V8_FLAGS = ['--semi-space-growth-factor=1', '--heap-growing-percent=10'] as const;

let applied = false;

/**
 * Sets MANAGER_V8_FLAGS, but not one whose name node's command line already gave (the operator's
 * value wins: `node --heap-growing-percent=0 bin/orbitkv.js serve` keeps V8's own growth policy).
 * Returns the flags it set.
 */
export function applyManagerHeapProfile(execArgv: readonly string[] = process.execArgv): string[] {
  if (applied) return [];
  applied = true;
  const given = new Set(execArgv.map(flagName));
  const set = MANAGER_V8_FLAGS.filter((flag) => !given.has(flagName(flag)));
  for (const flag of set) setFlagsFromString(flag);
  return set;
}

/** A V8 flag's name as V8 matches it: before any `=`, with `_` and `-` alike. */
function flagName(arg: string): string {
  const eq = arg.indexOf('=');
  return (eq < 0 ? arg : arg.slice(0, eq)).replace(/_/g, '-');
}

/**
 * The young generation this process has: its new space's capacity as V8 reports it (with
 * MANAGER_NODE_FLAGS 8 MiB, up to 16 once V8 took its one step past the semi-space it was given;
 * V8's default lets it reach 32), and whether node was started with MANAGER_NODE_FLAGS.
 */
export function youngGeneration(): { newSpaceBytes: number; configured: boolean } {
  const newSpaceBytes = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0;
  return { newSpaceBytes, configured: MANAGER_NODE_FLAGS.every((flag) => process.execArgv.includes(flag)) };
}
