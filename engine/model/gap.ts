import type { ContractBase, ContractId, EngineName } from './common.js';
import type { UpstreamCondition } from './hook.js';
import type { UpstreamStatus } from './upstream.js';

/** Where an assertion looks: a file of the engine checkout and a function in it. */
export interface SourceScope {
  /** Path relative to the checkout root (`vllm/v1/worker/gpu/model_runner.py`). */
  file: string;
  /** `function`, `Class.method` or `Class.Nested.method`. */
  function: string;
}

/**
 * Within the function, the first call to `first` happens before the first call to `then`.
 * Calls are followed into helpers (module functions, `self.`/`cls.` methods, bases) to a bounded
 * depth: a call inside a helper happens where the helper is called.
 */
export interface CallOrderAssertion extends SourceScope {
  form: 'call-order';
  /** Callee name (last dotted component: `preprocess_state` matches `self.model_state.preprocess_state(...)`). */
  first: string;
  /** Callee name that comes later. */
  then: string;
}

/** The function does (or does not) call `callee`, directly or through helpers it calls (bounded depth). */
export interface CallPresenceAssertion extends SourceScope {
  form: 'calls';
  /** Callee name (last dotted component). */
  callee: string;
  /** `true`: the call must be there; `false`: it must not. */
  present: boolean;
}

/**
 * Where the call to `callee` runs inside the function (followed through helpers like the other
 * call forms): on every run of the body, or only on the branch where a condition holds.
 */
export type CallBranchAssertion = UnconditionalCallAssertion | GuardedCallAssertion;

/** Some call to `callee` runs whenever the function body runs: no enclosing `if`, loop, handler or `case` (an earlier `if ...: return` is not read). */
export interface UnconditionalCallAssertion extends SourceScope {
  form: 'call-branch';
  /** Callee name (last dotted component). */
  callee: string;
  runs: 'unconditionally';
}

/** Every call to `callee` sits on the branch guarded by `condition`. */
export interface GuardedCallAssertion extends SourceScope {
  form: 'call-branch';
  /** Callee name (last dotted component). */
  callee: string;
  runs: 'when';
  /**
   * The guarding test as written (`scheduler_output.has_sync_kv_loads`), or its last dotted
   * part (`has_sync_kv_loads`); `not X` for the branch where X is false (`else`, `if not X`).
   */
  condition: string;
}

/** The string literals the function compares against or returns (e.g. backend names it accepts). */
export interface StringLiteralsAssertion extends SourceScope {
  form: 'string-literals';
  /** `exactly`: these are all of the candidates; `includes`: at least these; `excludes`: none of these. */
  match: 'exactly' | 'includes' | 'excludes';
  /** The literal values. */
  values: string[];
}

/** The function's return annotation is, textually after whitespace normalisation, this one. */
export interface ReturnAnnotationAssertion extends SourceScope {
  form: 'return-annotation';
  /** Annotation source text (`list[int]`). */
  annotation: string;
}

/** A module-level or class-level symbol exists (or not) in a file. */
export interface SymbolAssertion {
  form: 'symbol';
  /** Path relative to the checkout root. */
  file: string;
  /** `name`, `Class`, `Class.attribute` or `Class.method`. */
  symbol: string;
  /** `true`: must exist; `false`: must not. */
  present: boolean;
}

/** A parameter's or class attribute's default value has this source text. */
export interface DefaultValueAssertion {
  form: 'default';
  /** Path relative to the checkout root. */
  file: string;
  /** `Class.attribute` (dataclass field) or `function.parameter` / `Class.method.parameter`. */
  symbol: string;
  /** The default's source text (`True`). */
  value: string;
}

/** Every part holds. */
export interface AllOfAssertion {
  form: 'all';
  /** The parts. */
  of: SourceAssertion[];
}

/**
 * A fact about the released sources, checked mechanically by `orbitkv verify`.
 * Closed set of forms: no free-form code.
 */
export type SourceAssertion =
  | CallOrderAssertion
  | CallPresenceAssertion
  | CallBranchAssertion
  | StringLiteralsAssertion
  | ReturnAnnotationAssertion
  | SymbolAssertion
  | DefaultValueAssertion
  | AllOfAssertion;

/** What the gap forces. */
export interface GapConsequence {
  /** In words. */
  text: string;
  /** Rejection contracts it implies. */
  rejections: ContractId[];
  /** Hook contracts it keeps in place. */
  keepsHooks: ContractId[];
}

/** What must happen before the restricted profiles may reopen. */
export interface ReopeningGate {
  /** Upstream conditions, all required (released on the pinned line and consumed). */
  upstream: UpstreamCondition[];
  /** Qualification gates to pass afterwards. */
  gates: ContractId[];
}

/**
 * A fact about the released sources that forces a restriction ("remaining interface gaps",
 * "Native P/D release limits").
 */
export interface GapContract extends ContractBase {
  kind: 'gap';
  /** The engine whose released sources have the gap. */
  engine: EngineName;
  /** `interface-gap`: a missing or mis-ordered interface; `release-limit`: a released lifecycle that cannot be qualified. */
  category: 'interface-gap' | 'release-limit';
  /** The source assertion that holds while the gap exists. */
  assertion: SourceAssertion;
  /** What it forces. */
  consequence: GapConsequence;
  /** The upstream fix's status. */
  upstreamFix: UpstreamStatus;
  /** How the restricted profiles reopen. */
  reopening: ReopeningGate;
}
