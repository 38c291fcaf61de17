/** What a scenario needs from the machine it runs on. */
export type ScenarioNeeds = 'cpu' | 'gpu';

import type { ScenarioRun } from './harness/cell.js';
import type { ManagerSpec } from './harness/manager-process.js';

/** A parameter's value, as a cell hands it to the scenario's run. */
export type ParameterValue = string | number | boolean;

/**
 * How a gate's cell becomes the parameters of a run: every cell starts from `defaults`, and each
 * matrix axis value adds its own. A gate naming the scenario may use only the axes and values
 * listed here (validation: OKV3055, OKV3056), so every cell it declares is one the run knows.
 */
export interface ScenarioParameters {
  defaults: Record<string, ParameterValue>;
  /** Matrix axis → axis value → the parameters that value sets. */
  axes: Record<string, Record<string, Record<string, ParameterValue>>>;
}

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
  parameters: ScenarioParameters;
  /**
   * The Manager its cells run against (`ctx.manager()` without a spec), null when it needs none:
   * gates whose scenarios share a spec run on one worker, so its Manager starts once.
   */
  manager?: ManagerSpec | null;
  /** Loads the function that runs one cell (CPU scenarios; a GPU scenario runs on the GPU host). */
  load?: () => Promise<ScenarioRun>;
}

const none: ScenarioParameters = { defaults: {}, axes: {} };
const SSD: ManagerSpec = { ssdBytes: 8 * 1024 * 1024 };
/** Restores whose copy into pages starts late: a restore in flight long enough to act on. */
const DELAYED: ManagerSpec = { ssdBytes: 8 * 1024 * 1024, faults: { 'restore-copy-delay-ms': 600 } };
const run = (load: () => Promise<{ run: ScenarioRun }>) => async () => (await load()).run;

/** Every runnable scenario, in the order reports list them. */
export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'tier-cold-hot-restart',
    description: 'per tier (DRAM, SSD): a cold request saves and does not hit, a hot request hits, a Manager restart restores fully from the durable index',
    needs: 'cpu',
    area: 'tier',
    exercises: ['save', 'restore', 'restart', 'dram-tier', 'ssd-tier', 'durable-index'],
    manager: SSD,
    parameters: { defaults: {}, axes: { tier: { dram: { tier: 'dram' }, ssd: { tier: 'ssd' } }, phase: { cold: { phase: 'cold' }, hot: { phase: 'hot' }, restart: { phase: 'restart' } } } },
    load: run(() => import('./scenarios/tier-cold-hot-restart.js')),
  },
  {
    name: 'lookup-states',
    description: 'lookup tickets resolve cold, partial and full prefixes; a pending ticket is never reported as a miss',
    needs: 'cpu',
    area: 'lookup',
    exercises: ['lookup'],
    manager: SSD,
    parameters: { defaults: { blocks: 8 }, axes: { prefix: { cold: { stored: 0 }, partial: { stored: 4 }, full: { stored: 8 } } } },
    load: run(() => import('./scenarios/lookup-states.js')),
  },
  {
    name: 'lookup-timeout',
    description: 'a lookup answered after its deadline resolves to timeout and releases every lease it held',
    needs: 'cpu',
    area: 'lookup',
    exercises: ['lookup', 'leases'],
    manager: SSD,
    parameters: { defaults: { deadlineMs: 400 }, axes: {} },
    load: run(() => import('./scenarios/lookup-timeout.js')),
  },
  {
    name: 'lookup-cancellation',
    description: 'aborting a request with a pending lookup ends it cancelled, releases its leases once and discards the late answer',
    needs: 'cpu',
    area: 'lookup',
    exercises: ['lookup', 'abort-drain', 'leases'],
    manager: SSD,
    parameters: { defaults: { deadlineMs: 5000 }, axes: {} },
    load: run(() => import('./scenarios/lookup-cancellation.js')),
  },
  {
    name: 'lookup-rank-agreement',
    description: 'ranks answering at different times all admit the same prefix boundary, or all defer',
    needs: 'cpu',
    area: 'lookup',
    exercises: ['lookup', 'admission', 'rank-agreement'],
    manager: SSD,
    parameters: { defaults: { ranks: 2 }, axes: { ranks: { '2': { ranks: 2 }, '4': { ranks: 4 } } } },
    load: run(() => import('./scenarios/lookup-rank-agreement.js')),
  },
  {
    name: 'restore-cancel',
    description: 'an aborted restore into device pages drains before its pages are released',
    needs: 'gpu',
    area: 'restore',
    exercises: ['restore', 'abort-drain', 'cuda-streams'],
    parameters: none,
  },
  {
    name: 'restore-cancel-page-reuse',
    description: 'pages of a cancelled restore are reused only after the drain; a reused page never receives a stale write',
    needs: 'gpu',
    area: 'restore',
    exercises: ['restore', 'abort-drain', 'page-reuse', 'cuda-streams'],
    parameters: none,
  },
  {
    name: 'eager-restore',
    description: 'in eager execution each layer waits for its restored pages; restored bytes equal saved bytes',
    needs: 'gpu',
    area: 'restore',
    exercises: ['restore', 'per-layer-completion', 'cuda-events'],
    parameters: none,
  },
  {
    name: 'graph-restore',
    description: 'a replayed captured CUDA graph waits for restore signals recorded after its launch (stream memory operations)',
    needs: 'gpu',
    area: 'restore',
    exercises: ['restore', 'per-layer-completion', 'cuda-graphs', 'stream-memory-ops'],
    parameters: none,
  },
  {
    name: 'checkpoint-window-bytes',
    description: 'recurrent checkpoint and window state saved and released under abort or preemption account for exactly the bytes written',
    needs: 'cpu',
    area: 'checkpoint',
    exercises: ['checkpoint', 'abort-drain', 'save'],
    manager: DELAYED,
    parameters: { defaults: { checkpoints: 2, window: 4 }, axes: { event: { abort: { event: 'abort' }, preemption: { event: 'preemption' } } } },
    load: run(() => import('./scenarios/checkpoint-window-bytes.js')),
  },
  {
    name: 'fault-paused-ssd-cancel',
    description: 'with an SSD completion held back, cancelling frees no page before the read completes or is revoked; the in-flight budget returns to zero',
    needs: 'cpu',
    area: 'fault',
    exercises: ['restore', 'abort-drain', 'ssd-tier', 'io-budget'],
    manager: { ssdBytes: 8 * 1024 * 1024, faults: { 'ssd-read-hold-ms': 1500 } },
    parameters: none,
    load: run(() => import('./scenarios/fault-paused-ssd-cancel.js')),
  },
  {
    name: 'fault-expired-result',
    description: 'a load result the engine never collects expires; pages and leases are released once and the engine sees a terminal failure',
    needs: 'cpu',
    area: 'fault',
    exercises: ['restore', 'leases', 'expiry'],
    manager: { ssdBytes: 8 * 1024 * 1024, leaseMs: 400 },
    parameters: none,
    load: run(() => import('./scenarios/fault-expired-result.js')),
  },
  {
    name: 'fault-delayed-restore',
    description: 'a restore delayed past the forward is waited for per layer or reported as a load error; no forward reads a partial page',
    needs: 'cpu',
    area: 'fault',
    exercises: ['restore', 'per-layer-completion', 'load-errors'],
    manager: DELAYED,
    parameters: none,
    load: run(() => import('./scenarios/fault-delayed-restore.js')),
  },
  {
    name: 'fault-manager-restart',
    description: 'after a Manager restart stale leases, grants and tickets are rejected and the durable index is recovered',
    needs: 'cpu',
    area: 'fault',
    exercises: ['restart', 'leases', 'durable-index'],
    manager: SSD,
    parameters: none,
    load: run(() => import('./scenarios/fault-manager-restart.js')),
  },
  {
    name: 'fault-engine-killed',
    description: 'an engine killed with registered buffers has its grants revoked and buffers reclaimed; other engines are unaffected',
    needs: 'cpu',
    area: 'fault',
    exercises: ['restart', 'grants', 'shared-memory'],
    manager: SSD,
    parameters: none,
    load: run(() => import('./scenarios/fault-engine-killed.js')),
  },
  {
    name: 'package-check',
    description: 'a built adapter wheel holds the required files and entry points, exact engine pins, no bytecode and no retired path',
    needs: 'cpu',
    area: 'packaging',
    exercises: ['wheel-contents'],
    manager: null,
    parameters: none,
    load: run(() => import('./scenarios/package-check.js')),
  },
  {
    name: 'lazy-import',
    description: 'importing both plugins with OrbitKV not selected imports neither torch nor the native runtime and opens no connection',
    needs: 'cpu',
    area: 'packaging',
    exercises: ['lazy-import'],
    manager: null,
    parameters: none,
    load: run(() => import('./scenarios/lazy-import.js')),
  },
];

const BY_NAME = new Map(SCENARIOS.map((s) => [s.name, s]));

/** The scenario named `name`, if the catalogue has it. */
export function scenario(name: string): Scenario | undefined {
  return BY_NAME.get(name);
}
