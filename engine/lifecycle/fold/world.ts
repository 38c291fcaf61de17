import type { Contract, GapContract, GateContract } from '../../model/index.js';
import type { Registry } from '../../registry/index.js';
import {
  type Lifecycle, type LifecycleKind, type RequirementSpec, type TransitionTable,
  compileTable, gapSpec, gateContext, gateLifecycle, gateSpec, hookLifecycle, hookSpec, lifecycleKindOf, rejectionSpec,
  requirementContext, restrictionLifecycle, upstreamContext, upstreamLifecycle, definitionHash, ENGINE_AXIS,
} from '../machines/index.js';

/** Every lifecycle, by kind. */
export const LIFECYCLES: Record<LifecycleKind, Lifecycle<object>> = {
  hook: hookLifecycle as unknown as Lifecycle<object>,
  restriction: restrictionLifecycle as unknown as Lifecycle<object>,
  gate: gateLifecycle as unknown as Lifecycle<object>,
  upstream: upstreamLifecycle as unknown as Lifecycle<object>,
};

let tables: Record<LifecycleKind, TransitionTable<object>> | undefined;
let machinesHash: string | undefined;

/** Transition tables, compiled once per process from the machine definitions. */
export function lifecycleTables(): Record<LifecycleKind, TransitionTable<object>> {
  tables ??= { hook: compileTable(LIFECYCLES.hook), restriction: compileTable(LIFECYCLES.restriction), gate: compileTable(LIFECYCLES.gate), upstream: compileTable(LIFECYCLES.upstream) };
  return tables;
}

/** Hash of every machine definition and its guard and reducer sources: part of the snapshot cache key. */
export function machinesDefinitionHash(): string {
  machinesHash ??= definitionHash(Object.values(LIFECYCLES));
  return machinesHash;
}

/** A contract the fold tracks, with its lifecycle and the context it starts from. */
export interface TrackedContract {
  id: string;
  lifecycle: LifecycleKind;
  /** The engine whose pin and rechecks concern it. */
  engines: string[];
  initial: object;
  requirement?: RequirementSpec;
}

/**
 * What the fold needs from the registry: the tracked contracts and who listens to records about
 * which subject. Built once per registry.
 */
export interface World {
  registry: Registry;
  tracked: Map<string, TrackedContract>;
  /** Subject id → tracked ids a record about it is delivered to (the subject first). */
  listeners: Map<string, string[]>;
  /** Engine name → tracked ids its rechecks concern. */
  byEngine: Map<string, string[]>;
  /** Engine contract id → engine name. */
  engineOfContract: Map<string, string>;
  /** The registry's own pins. */
  registryPins: Record<string, { version: string; commit?: string; line: string }>;
  /** The tracked contracts in one fixed order: the fold keeps its per-contract data in arrays by this index. */
  order: TrackedContract[];
  /** `listeners` as indexes into `order`. */
  listenerSlots: Map<string, number[]>;
  /** `byEngine` as indexes into `order`. */
  engineSlots: Map<string, number[]>;
  /** Indexes of the contracts a pin change concerns: every tracked one but upstream changes. */
  pinSlots: number[];
  /** Subject id → what a record about it needs, found with one lookup per record (the fold's hot path). */
  subjects: Map<string, SubjectFacts>;
}

/** A record subject as the fold sees it. */
export interface SubjectFacts {
  /** `listenerSlots` of the subject (empty: nobody listens). */
  listeners: number[];
  /** The gate contract of that id, if it is one. */
  gate: GateContract | undefined;
  /** The engine name, if it is an engine contract. */
  engine: string | undefined;
}

const worlds = new WeakMap<Registry, World>();

export function worldOf(registry: Registry): World {
  const known = worlds.get(registry);
  if (known) return known;
  const world = buildWorld(registry);
  worlds.set(registry, world);
  return world;
}

function buildWorld(registry: Registry): World {
  const registryPins: World['registryPins'] = {};
  const engineOfContract = new Map<string, string>();
  for (const e of registry.ofKind('engine')) {
    engineOfContract.set(e.id, e.name);
    registryPins[e.name] = { version: e.version, line: e.line, ...(e.commit ? { commit: e.commit } : {}) };
  }
  const tracked = new Map<string, TrackedContract>();
  const listeners = new Map<string, string[]>();
  const byEngine = new Map<string, string[]>();
  const listen = (subject: string, id: string) => {
    const list = listeners.get(subject);
    if (!list) listeners.set(subject, [id]);
    else if (!list.includes(id)) list.push(id);
  };
  // Which gaps stand behind each rejection, indexed once (asking per rejection is quadratic).
  const gapsBehind = new Map<string, GapContract[]>();
  for (const gap of registry.ofKind('gap')) {
    const add = (id: string) => {
      const list = gapsBehind.get(id) ?? [];
      if (!list.includes(gap)) list.push(gap);
      gapsBehind.set(id, list);
    };
    for (const id of gap.consequence.rejections) add(id);
  }
  for (const rejection of registry.ofKind('rejection')) {
    for (const id of rejection.justifiedBy) {
      const gap = registry.get(id);
      if (gap?.kind !== 'gap') continue;
      const list = gapsBehind.get(rejection.id) ?? [];
      if (!list.includes(gap)) list.push(gap);
      gapsBehind.set(rejection.id, list);
    }
  }
  const gapOrder = new Map(registry.ofKind('gap').map((g, i) => [g, i]));
  for (const list of gapsBehind.values()) list.sort((a, b) => gapOrder.get(a)! - gapOrder.get(b)!);
  for (const contract of registry.contracts) {
    if (tracked.has(contract.id)) continue;
    const t = trackedOf(registry, contract, registryPins, gapsBehind);
    if (!t) continue;
    tracked.set(t.id, t);
    listen(t.id, t.id);
    for (const engine of t.engines) {
      const list = byEngine.get(engine) ?? [];
      list.push(t.id);
      byEngine.set(engine, list);
    }
  }
  for (const t of tracked.values()) {
    const spec = t.requirement;
    if (!spec) continue;
    for (const cell of [...spec.cells, ...spec.dropCells]) listen(cell.gate, t.id);
    for (const condition of spec.conditions) {
      if (condition.upstream) listen(condition.upstream, t.id);
      if (condition.subject !== t.id) listen(condition.subject, t.id);
    }
  }
  const order = [...tracked.values()];
  const slotOf = new Map(order.map((t, i) => [t.id, i]));
  const slots = (ids: readonly string[]) => ids.map((id) => slotOf.get(id)!);
  const listenerSlots = new Map([...listeners].map(([subject, ids]) => [subject, slots(ids)]));
  const engineSlots = new Map([...byEngine].map(([engine, ids]) => [engine, slots(ids)]));
  const pinSlots = order.flatMap((t, i) => (t.lifecycle === 'upstream' ? [] : [i]));
  const subjects = new Map<string, SubjectFacts>();
  const facts = (id: string): SubjectFacts => {
    const contract = registry.get(id);
    return { listeners: listenerSlots.get(id) ?? [], gate: contract?.kind === 'gate' ? contract : undefined, engine: engineOfContract.get(id) };
  };
  for (const contract of registry.contracts) if (!subjects.has(contract.id)) subjects.set(contract.id, facts(contract.id));
  for (const subject of listenerSlots.keys()) if (!subjects.has(subject)) subjects.set(subject, facts(subject));
  return { registry, tracked, listeners, byEngine, engineOfContract, registryPins, order, listenerSlots, engineSlots, pinSlots, subjects };
}

function trackedOf(registry: Registry, contract: Contract, pins: World['registryPins'], gapsBehind: Map<string, GapContract[]>): TrackedContract | undefined {
  const kind = lifecycleKindOf(contract);
  const pinOf = (engine: string) => {
    const p = pins[engine];
    return p ? { version: p.version, line: p.line } : undefined;
  };
  switch (contract.kind) {
    case 'hook': {
      const spec = hookSpec(registry, contract);
      return { id: contract.id, lifecycle: 'hook', engines: [contract.engine], initial: requirementContext(spec, pinOf(contract.engine)), requirement: spec };
    }
    case 'gap':
    case 'rejection': {
      const spec = contract.kind === 'gap' ? gapSpec(registry, contract) : rejectionSpec(registry, contract, gapsBehind.get(contract.id) ?? []);
      return { id: contract.id, lifecycle: 'restriction', engines: [contract.engine], initial: requirementContext(spec, pinOf(contract.engine)), requirement: spec };
    }
    case 'gate': {
      const engines = new Set<string>();
      if (contract.environment.engine) engines.add(contract.environment.engine);
      for (const v of contract.matrix?.find((a) => a.axis === ENGINE_AXIS)?.values ?? []) if (pins[v]) engines.add(v);
      return { id: contract.id, lifecycle: 'gate', engines: [...engines], initial: gateContext(gateSpec(contract)) };
    }
    case 'upstream':
      return { id: contract.id, lifecycle: 'upstream', engines: [contract.engine], initial: upstreamContext({ id: contract.id, engine: contract.engine }) };
    default:
      void kind;
      return undefined;
  }
}
