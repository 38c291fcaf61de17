import type { EnvVarName } from './common.js';

/**
 * The operator a predicate leaf applies to one profile fact.
 * - `equals` / `not-equals`: strict comparison with `value` (an absent fact is not equal);
 * - `in` / `not-in`: membership in `values`;
 * - `present` / `absent`: whether the fact exists (env var set; config path resolves to a non-null value);
 * - `truthy`: present and not `false`, `0`, `""`, empty list;
 * - `count-greater-than`: the fact is a list (or mapping) with more than `value` entries;
 * - `version-less-than` / `version-at-least`: dotted numeric comparison against `value`.
 */
export type PredicateOperator =
  | 'equals'
  | 'not-equals'
  | 'in'
  | 'not-in'
  | 'present'
  | 'absent'
  | 'truthy'
  | 'count-greater-than'
  | 'version-less-than'
  | 'version-at-least';

/** A scalar a profile fact can be compared with. */
export type FactValue = string | number | boolean;

/** A leaf over an environment variable of the engine process (values are strings). */
export interface EnvFact {
  /** The environment variable's name. */
  env: EnvVarName;
  /** The comparison. */
  op: PredicateOperator;
  /** Operand of `equals`, `not-equals`, `count-greater-than`, `version-*`. */
  value?: FactValue;
  /** Operand of `in` / `not-in`. */
  values?: FactValue[];
}

/**
 * A leaf over an engine configuration attribute, by the engine's own attribute path
 * (`vllm_config.use_v2_model_runner`, `kv_cache_config.kv_cache_groups`,
 * `server_args.enable_hierarchical_cache`).
 */
export interface ConfigFact {
  /**
   * Dotted attribute path from the engine's root objects.
   * @pattern ^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$
   */
  config: string;
  /** The comparison. */
  op: PredicateOperator;
  /** Operand of `equals`, `not-equals`, `count-greater-than`, `version-*`. */
  value?: FactValue;
  /** Operand of `in` / `not-in`. */
  values?: FactValue[];
}

/** A leaf over the engine's own version (the profile's `version`). */
export interface VersionFact {
  /** Always `engine`: the profile's running engine version. */
  version: 'engine';
  /** `equals`, `not-equals`, `in`, `not-in`, `version-less-than`, `version-at-least`. */
  op: PredicateOperator;
  /** Operand of single-value operators. */
  value?: FactValue;
  /** Operand of `in` / `not-in`. */
  values?: FactValue[];
}

/** All of the parts hold. */
export interface AllPredicate {
  /** Every part must hold (an empty list holds). */
  all: Predicate[];
}

/** At least one part holds. */
export interface AnyPredicate {
  /** At least one part must hold (an empty list does not hold). */
  any: Predicate[];
}

/** The part does not hold. */
export interface NotPredicate {
  /** Negated predicate. */
  not: Predicate;
}

/**
 * A rejection predicate: data over an engine profile, compiled to Python and TypeScript.
 * No code: leaves compare one fact, `all` / `any` / `not` combine them.
 */
export type Predicate = EnvFact | ConfigFact | VersionFact | AllPredicate | AnyPredicate | NotPredicate;

/**
 * What a rejection check sees of a running (or planned) engine: the preflight input.
 * `config` mirrors the engine's attribute paths as nested objects.
 */
export interface EngineProfile {
  /** The engine's name as pinned (`vllm`, `sglang`). */
  engine: string;
  /** The running engine's version. */
  version: string;
  /** The engine process's environment variables that matter. */
  env: { [name: string]: string };
  /** Engine configuration as nested objects keyed by the engine's attribute names. */
  config: { [root: string]: unknown };
}
