import { productOf } from '../../engine/registry/index.js';
import type { Registry } from '../../engine/registry/index.js';
import type { Predicate } from '../../engine/model/index.js';
import { ADAPTER_TEMPLATES } from '../adapters/templates.js';
import type { ProfileRules } from './profile.js';
import { type GateStep, gateSteps } from './gates.js';

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
  /** How each engine of the table reads its profile (its adapter template's rules), by engine name; engines without rules are left out. */
  profiles: Record<string, ProfileRules>;
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
  const engineNames = [...new Set([...pins.map((p) => p.engine), ...rejections.map((r) => r.engine)])].sort();
  const profiles: Record<string, ProfileRules> = {};
  for (const name of engineNames) {
    const rules = Object.prototype.hasOwnProperty.call(ADAPTER_TEMPLATES, name) ? ADAPTER_TEMPLATES[name]!.profile : undefined;
    if (rules) profiles[name] = rules;
  }
  return { product: { name: productOf(registry).name }, pins, rejections, profiles };
}

