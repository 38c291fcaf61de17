import type { Contract, GapContract, GateContract, HookContract, RejectionContract, UpstreamCondition } from '../../model/index.js';
import type { Registry } from '../../registry/index.js';
import { ENGINE_AXIS, gateCells, slotKey } from './cells.js';

/** One gate cell a removal or reopening needs. */
export interface CellSpec {
  gate: string;
  cell: string;
  /** `gate|cell`. */
  key: string;
  /** Index of its result in the context (cells shared by removal and drop paths share a slot). */
  slot: number;
  /** Index of its gate's independent evidence in the context. */
  gateSlot: number;
  /** The gate's `evidence.independent`. */
  independent: boolean;
  /** The gate's `evidence.hashes`. */
  hashes: 'engine-and-adapter' | 'adapter' | 'none';
}

/** One upstream condition: released on the pinned line, then consumed by the adapter. */
export interface ConditionSpec {
  /** `subject#index`, the index into the subject's upstream conditions. */
  key: string;
  /** Its index in the spec's conditions (and in the context's arrays). */
  slot: number;
  /** The contract whose consumption records satisfy it. */
  subject: string;
  index: number;
  upstream?: string;
  requires: string;
}

/** What a hook, gap or rejection needs before it may leave (or reopen), from the registry. */
export interface RequirementSpec {
  id: string;
  /** The engine whose pin the profile is bound to. */
  engine: string;
  conditions: ConditionSpec[];
  cells: CellSpec[];
  /** Opt-in hooks: the cells of the drop alternative. */
  dropCells: CellSpec[];
  optIn: boolean;
  /** The contract itself declares the hook removed (before the ledger). */
  declaredRemoved: boolean;
  /**
   * Lookups from event keys to the context's array slots. Contexts hold arrays, not objects keyed
   * by contract ids: thousands of distinct keys would give V8 a hidden class per key sequence.
   */
  slots: { cells: Map<string, number>; conditions: Map<string, number>; upstreams: Map<string, number[]>; gates: Map<string, number> };
}

/** What a gate's own lifecycle tracks. */
export interface GateSpec {
  id: string;
  cells: string[];
  independent: boolean;
  hashes: 'engine-and-adapter' | 'adapter' | 'none';
}

export interface UpstreamSpec {
  id: string;
  engine: string;
}

function cellsOf(registry: Registry, gateIds: readonly string[], engine: string | undefined): Omit<CellSpec, 'slot' | 'gateSlot'>[] {
  const out: Omit<CellSpec, 'slot' | 'gateSlot'>[] = [];
  for (const id of gateIds) {
    const gate = registry.get(id);
    if (!gate || gate.kind !== 'gate') {
      // A dangling gate reference is a registry error (validation names it); it still blocks.
      out.push({ gate: id, cell: '-', key: slotKey(id, '-'), independent: false, hashes: 'engine-and-adapter' });
      continue;
    }
    for (const c of cellsForEngine(gate, engine)) out.push({ gate: id, cell: c, key: slotKey(id, c), independent: gate.evidence.independent, hashes: gate.evidence.hashes });
  }
  return out;
}

/** A gate's cells that concern `engine`: cells bound to another engine by an `engine` axis are left out. */
export function cellsForEngine(gate: GateContract, engine: string | undefined): string[] {
  const axis = gate.matrix?.find((a) => a.axis === ENGINE_AXIS);
  const all = gateCells(gate);
  if (!axis || engine === undefined || !axis.values.includes(engine)) return all.map((c) => c.key);
  return all.filter((c) => c.values[ENGINE_AXIS] === engine).map((c) => c.key);
}

function conditionsOf(subject: string, upstream: readonly UpstreamCondition[]): Omit<ConditionSpec, 'slot'>[] {
  return upstream.map((u, index) => ({ key: `${subject}#${index}`, subject, index, requires: u.requires, ...(u.upstream ? { upstream: u.upstream } : {}) }));
}

type Unindexed = Omit<RequirementSpec, 'slots' | 'cells' | 'dropCells' | 'conditions'> & {
  cells: Omit<CellSpec, 'slot' | 'gateSlot'>[];
  dropCells: Omit<CellSpec, 'slot' | 'gateSlot'>[];
  conditions: Omit<ConditionSpec, 'slot'>[];
};

/** Gives every cell, gate and condition its slot in the context's arrays. */
function indexed(spec: Unindexed): RequirementSpec {
  const cells = new Map<string, number>();
  const gates = new Map<string, number>();
  const slot = (c: Omit<CellSpec, 'slot' | 'gateSlot'>): CellSpec => {
    if (!cells.has(c.key)) cells.set(c.key, cells.size);
    if (!gates.has(c.gate)) gates.set(c.gate, gates.size);
    return { ...c, slot: cells.get(c.key)!, gateSlot: gates.get(c.gate)! };
  };
  const withSlots = { cells: spec.cells.map(slot), dropCells: spec.dropCells.map(slot) };
  const conditions = spec.conditions.map((c, i) => ({ ...c, slot: i }));
  const upstreams = new Map<string, number[]>();
  for (const c of conditions) if (c.upstream) upstreams.set(c.upstream, [...(upstreams.get(c.upstream) ?? []), c.slot]);
  return { ...spec, ...withSlots, conditions, slots: { cells, conditions: new Map(conditions.map((c) => [c.key, c.slot])), upstreams, gates } };
}

export function hookSpec(registry: Registry, hook: HookContract): RequirementSpec {
  return indexed({
    id: hook.id,
    engine: hook.engine,
    conditions: conditionsOf(hook.id, hook.removalGate.upstream),
    cells: cellsOf(registry, hook.removalGate.gates, hook.engine),
    dropCells: hook.activation.mode === 'opt-in' && hook.removalGate.dropAlternative ? cellsOf(registry, hook.removalGate.dropAlternative.gates, hook.engine) : [],
    optIn: hook.activation.mode === 'opt-in',
    declaredRemoved: hook.disposition.state === 'removed',
  });
}

export function gapSpec(registry: Registry, gap: GapContract): RequirementSpec {
  return indexed({ id: gap.id, engine: gap.engine, conditions: conditionsOf(gap.id, gap.reopening.upstream), cells: cellsOf(registry, gap.reopening.gates, gap.engine), dropCells: [], optIn: false, declaredRemoved: false });
}

/** The gaps whose reopening reopens a rejection: those that list it as a consequence or justify it. */
export function gapsOfRejection(registry: Registry, rejection: RejectionContract): GapContract[] {
  return registry.ofKind('gap').filter((g) => g.consequence.rejections.includes(rejection.id) || rejection.justifiedBy.includes(g.id));
}

/** A rejection reopens when every gap behind it could reopen: their conditions and gates together. */
export function rejectionSpec(registry: Registry, rejection: RejectionContract, gaps: GapContract[] = gapsOfRejection(registry, rejection)): RequirementSpec {
  const gateIds = [...new Set(gaps.flatMap((g) => g.reopening.gates))];
  return indexed({
    id: rejection.id,
    engine: rejection.engine,
    conditions: gaps.flatMap((g) => conditionsOf(g.id, g.reopening.upstream)),
    cells: cellsOf(registry, gateIds, rejection.engine),
    dropCells: [],
    optIn: false,
    declaredRemoved: false,
  });
}

export function gateSpec(gate: GateContract): GateSpec {
  return { id: gate.id, cells: gateCells(gate).map((c) => c.key), independent: gate.evidence.independent, hashes: gate.evidence.hashes };
}

/** The lifecycle a contract kind follows, if any. */
export type LifecycleKind = 'hook' | 'restriction' | 'gate' | 'upstream';

export function lifecycleKindOf(contract: Contract): LifecycleKind | undefined {
  switch (contract.kind) {
    case 'hook':
      return 'hook';
    case 'gap':
    case 'rejection':
      return 'restriction';
    case 'gate':
      return 'gate';
    case 'upstream':
      return 'upstream';
    default:
      return undefined;
  }
}
