/**
 * The Manager's V8 heap settings.
 *
 * The young generation is fixed at 4 MiB a semi-space. A lookup runs its ticket through two
 * xstate transitions (OPEN, then RELEASE or CONSUME), and xstate's statechart algorithm builds
 * its sets and snapshots anew at every transition: about 8 KiB each, some 29 KiB a lookup with
 * the frame and the reply. Where those actors run on the thread that answers lookups
 * (`serve --ticket-actors main`), V8's 1 MiB start-size young generation took a scavenge every
 * ~35 lookups, each 0.3-0.5 ms, and the p99 at 10,000 lookups/s ran 2-3x the bare echo's; 8 MiB
 * made it one every ~290 (spec/bench/results/runtime-gc-dev-vm.txt). The Manager runs them on
 * the ticket worker by default (`--ticket-actors worker`), whose heap is its own: the main
 * isolate then allocates about a quarter as much a lookup, and 4 MiB holds its lookup phases on
 * an H100 host in 21-22 scavenges (148 in-process with 8 MiB), with the p99 there within 2x of
 * the echo's (not on an H200 host), at 8 MiB less resident memory than 8 MiB would take
 * (spec/bench/results/runtime-ticket-worker-h100-host.txt). For `--ticket-actors main`, start
 * node with --min-semi-space-size=8 --max-semi-space-size=8: the operator's values win.
 *
 * A semi-space's size is read only when V8 starts, so it is a node command-line flag:
 * MANAGER_NODE_FLAGS, which the `orbitkv` bin's first line and every Manager the project spawns
 * carry; a Manager started without them says so (`heap-flags-missing`) and serves with what it
 * has.
 *
 * What V8 reads while it runs is set here, once, as the Manager starts: the young generation
 * grows at most the one step V8 takes past its start size (4 -> 8 MiB as V8 reports it; without
 * the node flags 1 -> 2 MiB, where V8 alone would go on to 32), and the old
 * generation is let grow by 10 % of what survived its last full collection, not V8's default of
 * up to 4x: everything a request allocates dies young, and the old generation holds tables
 * bounded by the flags. `--optimize-for-size`, which this profile set before, kept the heap as
 * small, but it also slowed the compiled lookup path by about a third (xstate's two transitions
 * 15.0 -> 19.5 us on the dev VM). Nothing here limits how large the heap may become.
 */
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

/** The young generation's semi-space, in MiB (V8's unit for these flags). */
export const YOUNG_SEMI_SPACE_MIB = 4;

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

/**
 * Environment the Manager's process starts with (bin/orbitkv.js's first line sets it, and every
 * Manager the project spawns): read by the C library as the process starts, before node makes
 * its threads, so the Manager cannot set it for itself (a mallopt once it runs came too late,
 * measured). glibc gives each thread that mallocs under contention an arena of its own, up to 8
 * per core, and each keeps what was freed in it resident; the ticket worker and the I/O threads
 * made the Manager's own peak under the soak of 64 clients 181-191 MiB (188-191 in 4 of 5 runs)
 * against its bound of 192 (tiers + 64 MiB) on the dev VM, and 2 arenas 182-185 (README, The Manager,
 * "Limits today"). An operator who starts node
 * otherwise sets their own.
 */
export const MANAGER_ENV: Readonly<Record<string, string>> = Object.freeze({ MALLOC_ARENA_MAX: '2' });

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
 * MANAGER_NODE_FLAGS 4 MiB, up to 8 once V8 took its one step past the semi-space it was given;
 * V8's default lets it reach 32), and whether node was started with each of MANAGER_NODE_FLAGS,
 * by name: an operator's own value (8 MiB semi-spaces for `--ticket-actors main`) counts.
 */
export function youngGeneration(execArgv: readonly string[] = process.execArgv): { newSpaceBytes: number; configured: boolean } {
  const newSpaceBytes = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0;
  const given = new Set(execArgv.map(flagName));
  return { newSpaceBytes, configured: MANAGER_NODE_FLAGS.every((flag) => given.has(flagName(flag))) };
}
