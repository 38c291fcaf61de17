import { productOf } from '../../engine/registry/index.js';
import type { Registry } from '../../engine/registry/index.js';
import type { Predicate, RemovalGate, UpstreamCondition } from '../../engine/model/index.js';

/** One step of what must happen before a rejected profile may reopen (or a hook may go). */
export interface GateStep {
  /** The gap or hook contract whose reopening / removal gate this is. */
  contract: string;
  upstream: UpstreamCondition[];
  gates: string[];
}

/** The engine pin a profile's version must match. */
export interface PinData {
  contract: string;
  engine: string;
  distribution: string;
  version: string;
}

/** A rejection contract as the generated checks carry it: data only. */
export interface RejectionData {
  id: string;
  engine: string;
  title: string;
  when: Predicate;
  message: string;
  instead: string;
  justifiedBy: string[];
  /** Reopening gates of the justifying gaps and removal gates of the justifying hooks. */
  gate: GateStep[];
}

/** What the Python and TypeScript checks evaluate: pins and rejections, sorted by id. */
export interface RejectionTable {
  /** The product the messages name (from the registry's product policy). */
  product: { name: string };
  pins: PinData[];
  rejections: RejectionData[];
}

const byId = <T extends { id: string } | { contract: string }>(a: T, b: T): number => {
  const ka = 'id' in a ? a.id : a.contract;
  const kb = 'id' in b ? b.id : b.contract;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
};

/** Runtime engines' pins and every rejection of those engines (or of `engines` when given). */
export function rejectionTable(registry: Registry, engines?: readonly string[]): RejectionTable {
  const wanted = (name: string) => engines === undefined || engines.includes(name);
  const pins = registry
    .ofKind('engine')
    .filter((e) => e.role === 'runtime' && wanted(e.name))
    .map((e) => ({ contract: e.id, engine: e.name, distribution: e.distribution, version: e.version }))
    .sort(byId);
  const rejections = registry
    .ofKind('rejection')
    .filter((r) => wanted(r.engine))
    .map((r) => ({
      id: r.id,
      engine: r.engine,
      title: r.title,
      when: r.when,
      message: r.message,
      instead: r.instead,
      justifiedBy: [...r.justifiedBy],
      gate: gateSteps(registry, r.justifiedBy),
    }))
    .sort(byId);
  return { product: { name: productOf(registry).name }, pins, rejections };
}

/**
 * The reopening gates of the named gaps and the removal gates of the named kept hooks (a
 * removed hook's gate was already met; other kinds have none).
 */
export function gateSteps(registry: Registry, ids: readonly string[]): GateStep[] {
  const steps: GateStep[] = [];
  for (const id of ids) {
    const c = registry.get(id);
    if (c?.kind === 'gap') steps.push(step(id, c.reopening));
    else if (c?.kind === 'hook' && c.disposition.state === 'kept') steps.push(step(id, c.removalGate));
  }
  return steps;
}

function step(contract: string, gate: Pick<RemovalGate, 'upstream' | 'gates'>): GateStep {
  return {
    contract,
    upstream: gate.upstream.map((u) => (u.upstream !== undefined ? { upstream: u.upstream, requires: u.requires } : { requires: u.requires })),
    gates: [...gate.gates],
  };
}
