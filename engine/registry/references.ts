import type { Contract, ContractKind } from '../model/index.js';

/** One place where a contract names another contract by id. */
export interface Reference {
  /** The id named. */
  id: string;
  /** Where it is named, as a path into the contract. */
  path: ReadonlyArray<string | number>;
  /** The kinds the field accepts. */
  kinds: readonly ContractKind[];
}

/** One place where a contract names an engine. */
export interface EngineReference {
  name: string;
  path: ReadonlyArray<string | number>;
}

const ANY: readonly ContractKind[] = ['engine', 'interface', 'hook', 'gap', 'rejection', 'gate', 'upstream', 'policy'];
const GATE: readonly ContractKind[] = ['gate'];
const UPSTREAM: readonly ContractKind[] = ['upstream'];
/** What may justify a rejection or cover a removal besides gates. */
const JUSTIFYING: readonly ContractKind[] = ['gap', 'hook', 'interface', 'policy'];
const COVERING: readonly ContractKind[] = ['gate', 'interface', 'rejection', 'policy'];

const cache = new WeakMap<Contract, Reference[]>();

/**
 * Every contract id a contract names, with the kinds each field accepts: the one table the
 * reference rules and later phases (lifecycle, report) read, so a new reference field is
 * added in one place.
 */
export function referencesOf(contract: Contract): Reference[] {
  let refs = cache.get(contract);
  if (!refs) {
    refs = collect(contract);
    cache.set(contract, refs);
  }
  return refs;
}

function collect(c: Contract): Reference[] {
  const refs: Reference[] = [];
  const one = (id: string | undefined, path: ReadonlyArray<string | number>, kinds: readonly ContractKind[]) => {
    if (id !== undefined) refs.push({ id, path, kinds });
  };
  const list = (ids: readonly string[] | undefined, path: ReadonlyArray<string | number>, kinds: readonly ContractKind[]) => {
    ids?.forEach((id, i) => refs.push({ id, path: [...path, i], kinds }));
  };
  switch (c.kind) {
    case 'hook':
      replacementRefs(c.replacement, ['replacement'], one, list);
      c.removalGate.upstream.forEach((u, i) => one(u.upstream, ['removalGate', 'upstream', i, 'upstream'], UPSTREAM));
      list(c.removalGate.gates, ['removalGate', 'gates'], GATE);
      list(c.removalGate.dropAlternative?.gates, ['removalGate', 'dropAlternative', 'gates'], GATE);
      if (c.disposition.state === 'removed') list(c.disposition.coveredBy, ['disposition', 'coveredBy'], COVERING);
      list(c.gaps, ['gaps'], ['gap']);
      break;
    case 'gap':
      list(c.consequence.rejections, ['consequence', 'rejections'], ['rejection']);
      list(c.consequence.keepsHooks, ['consequence', 'keepsHooks'], ['hook']);
      replacementRefs(c.upstreamFix, ['upstreamFix'], one, list);
      c.reopening.upstream.forEach((u, i) => one(u.upstream, ['reopening', 'upstream', i, 'upstream'], UPSTREAM));
      list(c.reopening.gates, ['reopening', 'gates'], GATE);
      break;
    case 'rejection':
      list(c.justifiedBy, ['justifiedBy'], JUSTIFYING);
      break;
    case 'gate':
      list(c.qualifiesContracts, ['qualifiesContracts'], ANY);
      break;
    case 'interface':
      list(c.delivery.dependsOn, ['delivery', 'dependsOn'], UPSTREAM);
      list(c.qualifiedBy, ['qualifiedBy'], GATE);
      break;
    case 'policy':
      if (c.policy.rule === 'statement') list(c.policy.gates, ['policy', 'gates'], GATE);
      break;
    case 'engine':
    case 'upstream':
      break;
  }
  return refs;
}

type One = (id: string | undefined, path: ReadonlyArray<string | number>, kinds: readonly ContractKind[]) => void;
type List = (ids: readonly string[] | undefined, path: ReadonlyArray<string | number>, kinds: readonly ContractKind[]) => void;

function replacementRefs(r: Extract<Contract, { kind: 'hook' }>['replacement'], at: string[], one: One, list: List): void {
  switch (r.status) {
    case 'proposed':
    case 'merged':
    case 'released':
      one(r.upstream, [...at, 'upstream'], UPSTREAM);
      break;
    case 'not-needed':
      list(r.coveredBy, [...at, 'coveredBy'], ANY);
      break;
    case 'none':
      break;
  }
}

/** The engine a contract names, if its kind names one. */
export function engineReferenceOf(c: Contract): EngineReference | undefined {
  switch (c.kind) {
    case 'hook':
    case 'gap':
    case 'rejection':
    case 'interface':
    case 'upstream':
      return { name: c.engine, path: ['engine'] };
    case 'gate':
      return c.environment.engine !== undefined ? { name: c.environment.engine, path: ['environment', 'engine'] } : undefined;
    case 'engine':
    case 'policy':
      return undefined;
  }
}

/** A kind list for messages: `gate contract`, `gap, hook, interface or policy contract`. */
export function kindList(kinds: readonly ContractKind[]): string {
  if (kinds.length === ANY.length) return 'contract';
  if (kinds.length === 1) return `${kinds[0]} contract`;
  return `${kinds.slice(0, -1).join(', ')} or ${kinds[kinds.length - 1]} contract`;
}
