/**
 * The engine profile a stand-in presents at the handshake: the pinned version, and the env and
 * config facts that make every rejection of its engine false, derived from the rejections'
 * predicates (a rejection's `when` is falsified: a fact is left unset where that suffices, set
 * where the predicate needs it). The runner then asks the registry's own rejection checks whether
 * the Manager will accept it; a registry whose rejections cannot all be avoided this way gets no
 * profile and its cells fail saying so. Pure.
 */
import type { FactValue, Predicate, RejectionContract } from '../../model/index.js';
import { compareVersions } from '../../registry/index.js';

export interface EngineProfile {
  engine: string;
  version: string;
  env: Record<string, string>;
  config: Record<string, unknown>;
}

type Facts = Map<string, FactValue | undefined>;

const other = (v: FactValue | undefined): FactValue => (typeof v === 'boolean' ? !v : typeof v === 'number' ? v + 1 : `${String(v ?? '')}-other`);

function factKey(p: Predicate): string | null {
  const f = p as { env?: string; config?: string };
  if (typeof f.env === 'string') return `env:${f.env}`;
  if (typeof f.config === 'string') return `config:${f.config}`;
  return null;
}

/** Assignments that make `p` hold (`want` true) or not hold (`want` false), or null if none is found. */
function decide(p: Predicate, want: boolean, facts: Facts, version: string): Facts | null {
  const any = p as { all?: Predicate[]; any?: Predicate[]; not?: Predicate };
  if (any.not !== undefined) return decide(any.not, !want, facts, version);
  if (any.all !== undefined || any.any !== undefined) {
    const parts = any.all ?? any.any ?? [];
    const conjunction = (any.all !== undefined) === want; // every part must come out `want`
    if (conjunction) {
      let out: Facts | null = new Map(facts);
      for (const part of parts) {
        out = out && decide(part, want, out, version);
        if (!out) return null;
      }
      return out;
    }
    for (const part of parts) {
      const out = decide(part, want, facts, version);
      if (out) return out;
    }
    return parts.length === 0 && (any.all !== undefined) === want ? new Map(facts) : null;
  }
  const key = factKey(p);
  const fact = p as { op: string; value?: FactValue; values?: FactValue[] };
  if (key === null) {
    // A version fact: the pin decides it; nothing can be set.
    const v = fact.value === undefined ? '' : String(fact.value);
    const holds = fact.op === 'equals' ? compareVersions(version, v) === 0 : fact.op === 'not-equals' ? compareVersions(version, v) !== 0 : fact.op === 'in' ? (fact.values ?? []).some((x) => compareVersions(version, String(x)) === 0) : fact.op === 'not-in' ? !(fact.values ?? []).some((x) => compareVersions(version, String(x)) === 0) : fact.op === 'version-less-than' ? compareVersions(version, v) < 0 : fact.op === 'version-at-least' ? compareVersions(version, v) >= 0 : undefined;
    return holds === want ? facts : null;
  }
  const out = new Map(facts);
  const set = (v: FactValue | undefined) => {
    if (out.has(key) && out.get(key) !== v) return null;
    out.set(key, v);
    return out;
  };
  switch (fact.op) {
    case 'equals': return want ? set(fact.value) : out.has(key) ? (out.get(key) !== fact.value ? out : null) : set(undefined);
    case 'not-equals': return want ? (out.has(key) ? (out.get(key) !== fact.value ? out : null) : set(other(fact.value))) : set(fact.value);
    case 'in': return want ? set(fact.values?.[0]) : out.has(key) ? (!fact.values?.includes(out.get(key) as FactValue) ? out : null) : set(undefined);
    case 'not-in': return want ? set(undefined) : set(fact.values?.[0]);
    case 'present': return want ? set(out.get(key) ?? 'set') : set(undefined);
    case 'absent': return want ? set(undefined) : set(out.get(key) ?? 'set');
    case 'truthy': return want ? (out.get(key) ? out : set(true)) : out.has(key) ? (!out.get(key) ? out : null) : set(undefined);
    case 'count-greater-than': return want ? null : set(undefined);
    default: return null;
  }
}

/** A profile for `engine` at `version` that no rejection of the engine fires on, or null. */
export function acceptableProfile(engine: string, version: string, rejections: readonly RejectionContract[]): EngineProfile | null {
  let facts: Facts | null = new Map();
  for (const r of rejections.filter((x) => x.engine === engine)) {
    facts = decide(r.when, false, facts, version);
    if (!facts) return null;
  }
  const env: Record<string, string> = {};
  const config: Record<string, unknown> = {};
  for (const [key, value] of facts) {
    if (value === undefined) continue;
    const [kind, path] = [key.slice(0, key.indexOf(':')), key.slice(key.indexOf(':') + 1)];
    if (kind === 'env') env[path] = String(value);
    else {
      let at = config;
      const parts = path.split('.');
      for (const part of parts.slice(0, -1)) at = (at[part] ??= {}) as Record<string, unknown>;
      at[parts.at(-1)!] = value;
    }
  }
  return { engine, version, env, config };
}
