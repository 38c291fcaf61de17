/** What a scenario needs from the machine it runs on. */
export type ScenarioNeeds = 'cpu' | 'gpu';

/** The part of the system a scenario drives. */
export type ScenarioArea = 'tier' | 'lookup' | 'restore' | 'checkpoint' | 'fault' | 'packaging';

/**
 * A qualification scenario the runtime runs itself (`orbitkv gate run`). Gate contracts with
 * `scenario.runner: orbitkv` name one of these; validation rejects names not listed here.
 */
export interface Scenario {
  /** The name gate contracts use in `scenario.scenario`. */
  name: string;
  /** One line: what a pass shows. */
  description: string;
  /** `gpu`: needs a CUDA device (the gate's `environment.gpu` must be true). */
  needs: ScenarioNeeds;
  area: ScenarioArea;
  /** The runtime lifecycles and components it exercises. */
  exercises: readonly string[];
}

/** Every runnable scenario, in the order reports list them. */
export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'tier-cold-hot-restart',
    description: 'per tier (DRAM, SSD): a cold request saves and does not hit, a hot request hits, a Manager restart restores fully from the durable index',
    needs: 'cpu',
    area: 'tier',
    exercises: ['save', 'restore', 'restart', 'dram-tier', 'ssd-tier', 'durable-index'],
  },
  {
    name: 'lookup-states',
    description: 'lookup tickets resolve cold, partial and full prefixes; a pending ticket is never reported as a miss',
    needs: 'cpu',
    area: 'lookup',
    exercises: ['lookup'],
  },
  {
    name: 'lookup-timeout',
    description: 'a lookup answered after its deadline resolves to timeout and releases every lease it held',
    needs: 'cpu',
    area: 'lookup',
    exercises: ['lookup', 'leases'],
  },
  {
    name: 'lookup-cancellation',
    description: 'aborting a request with a pending lookup ends it cancelled, releases its leases once and discards the late answer',
    needs: 'cpu',
    area: 'lookup',
    exercises: ['lookup', 'abort-drain', 'leases'],
  },
  {
    name: 'lookup-rank-agreement',
    description: 'ranks answering at different times all admit the same prefix boundary, or all defer',
    needs: 'cpu',
    area: 'lookup',
    exercises: ['lookup', 'admission', 'rank-agreement'],
  },
  {
    name: 'restore-cancel',
    description: 'an aborted restore into device pages drains before its pages are released',
    needs: 'gpu',
    area: 'restore',
    exercises: ['restore', 'abort-drain', 'cuda-streams'],
  },
  {
    name: 'restore-cancel-page-reuse',
    description: 'pages of a cancelled restore are reused only after the drain; a reused page never receives a stale write',
    needs: 'gpu',
    area: 'restore',
    exercises: ['restore', 'abort-drain', 'page-reuse', 'cuda-streams'],
  },
  {
    name: 'eager-restore',
    description: 'in eager execution each layer waits for its restored pages; restored bytes equal saved bytes',
    needs: 'gpu',
    area: 'restore',
    exercises: ['restore', 'per-layer-completion', 'cuda-events'],
  },
  {
    name: 'graph-restore',
    description: 'a replayed captured CUDA graph waits for restore signals recorded after its launch (stream memory operations)',
    needs: 'gpu',
    area: 'restore',
    exercises: ['restore', 'per-layer-completion', 'cuda-graphs', 'stream-memory-ops'],
  },
  {
    name: 'checkpoint-window-bytes',
    description: 'recurrent checkpoint and window state saved and released under abort or preemption account for exactly the bytes written',
    needs: 'cpu',
    area: 'checkpoint',
    exercises: ['checkpoint', 'abort-drain', 'save'],
  },
  {
    name: 'fault-paused-ssd-cancel',
    description: 'with an SSD completion held back, cancelling frees no page before the read completes or is revoked; the in-flight budget returns to zero',
    needs: 'cpu',
    area: 'fault',
    exercises: ['restore', 'abort-drain', 'ssd-tier', 'io-budget'],
  },
  {
    name: 'fault-expired-result',
    description: 'a load result the engine never collects expires; pages and leases are released once and the engine sees a terminal failure',
    needs: 'cpu',
    area: 'fault',
    exercises: ['restore', 'leases', 'expiry'],
  },
  {
    name: 'fault-delayed-restore',
    description: 'a restore delayed past the forward is waited for per layer or reported as a load error; no forward reads a partial page',
    needs: 'cpu',
    area: 'fault',
    exercises: ['restore', 'per-layer-completion', 'load-errors'],
  },
  {
    name: 'fault-manager-restart',
    description: 'after a Manager restart stale leases, grants and tickets are rejected and the durable index is recovered',
    needs: 'cpu',
    area: 'fault',
    exercises: ['restart', 'leases', 'durable-index'],
  },
  {
    name: 'fault-engine-killed',
    description: 'an engine killed with registered buffers has its grants revoked and buffers reclaimed; other engines are unaffected',
    needs: 'cpu',
    area: 'fault',
    exercises: ['restart', 'grants', 'shared-memory'],
  },
  {
    name: 'package-check',
    description: 'a built adapter wheel holds the required files and entry points, exact engine pins, no bytecode and no retired path',
    needs: 'cpu',
    area: 'packaging',
    exercises: ['wheel-contents'],
  },
  {
    name: 'lazy-import',
    description: 'importing both plugins with OrbitKV not selected imports neither torch nor the native runtime and opens no connection',
    needs: 'cpu',
    area: 'packaging',
    exercises: ['lazy-import'],
  },
];

const BY_NAME = new Map(SCENARIOS.map((s) => [s.name, s]));

/** The scenario named `name`, if the catalogue has it. */
export function scenario(name: string): Scenario | undefined {
  return BY_NAME.get(name);
}
