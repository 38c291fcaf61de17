import type { ContractBase, ContractId, DottedPath, EngineName, EnvVarName } from './common.js';
import type { Signature } from './signature.js';
import type { UpstreamStatus } from './upstream.js';

/**
 * How the hook attaches: SGLang `HookType` values, or a structural override.
 * - `BEFORE` / `AFTER` / `AROUND` / `REPLACE`: through the engine's hook registry on a dotted target;
 * - `component-override`: a public component slot filled with the cache's class;
 * - `wrapper`: a class wrapping an engine object the cache receives;
 * - `method-replacement`: a monkey patch of a method (retired style; removed hooks only);
 * - `class-swap`: replacing an engine class (retired style; removed hooks only);
 * - `callback`: a fork-only callback (retired; removed hooks only).
 */
export type HookType = 'BEFORE' | 'AFTER' | 'AROUND' | 'REPLACE' | 'component-override' | 'wrapper' | 'method-replacement' | 'class-swap' | 'callback';

/** The Manager's own runtime lifecycles (names of its machines); a product policy may add its own. */
export const MANAGER_LIFECYCLES = ['lookup', 'restore', 'save', 'abort-drain', 'restart', 'admission', 'prepare', 'pd-handoff', 'checkpoint'] as const;

/**
 * A runtime lifecycle a hook guards: one of `MANAGER_LIFECYCLES` or a name the product policy
 * lists in `lifecycles` (checked by the `hook-lifecycle` rule).
 * @pattern ^[a-z][a-z0-9-]*$
 */
export type RuntimeLifecycle = string;

/** What the hook protects. */
export interface Protection {
  /** What breaks without it, in words. */
  text: string;
  /** The runtime lifecycles it guards. */
  lifecycles: RuntimeLifecycle[];
}

/** Always installed when OrbitKV is the selected backend. */
export interface AlwaysActive {
  mode: 'always';
}

/** Installed only when one of the environment switches is set. */
export interface OptInActivation {
  mode: 'opt-in';
  /** Any of these, set to `value`, enables the hook. */
  switches: EnvSwitch[];
}

/** One environment switch of an opt-in hook. */
export interface EnvSwitch {
  /** The variable. */
  env: EnvVarName;
  /** The value that enables the hook (compared as a string). */
  value: string;
}

/** When the hook is installed. */
export type Activation = AlwaysActive | OptInActivation;

/** An upstream condition of a removal gate. */
export interface UpstreamCondition {
  /** The `upstream` contract, when a PR is tracked. */
  upstream?: ContractId;
  /** What must be released (and consumed by the adapter) upstream, in words. */
  requires: string;
}

/**
 * When the hook may go: the replacement released on the pinned line and consumed by the
 * adapter, then every named gate passed on that profile with matching before/after hashes.
 */
export interface RemovalGate {
  /** Upstream conditions; all must be met. */
  upstream: UpstreamCondition[];
  /** Qualification gates that must pass on the profile that consumes the replacement. */
  gates: ContractId[];
  /**
   * For optional optimizations: the hook may also leave by dropping the optimization, once these
   * gates (matched workload checks) pass.
   */
  dropAlternative?: { gates: ContractId[]; text: string };
}

/** The hook is kept. */
export interface KeptDisposition {
  state: 'kept';
  /** Why the official interfaces do not yet suffice. */
  reason: string;
}

/** The hook was removed. */
export interface RemovedDisposition {
  state: 'removed';
  /** What replaced it, in words. */
  disposition: string;
  /** Gates, interfaces or evidence ids whose passes cover the removal. */
  coveredBy: ContractId[];
  /** What remains open after removal, if anything (e.g. fault qualification). */
  openAfterRemoval?: string;
}

/** A remaining or removed internal hook ("Remaining Hook contracts"). */
export interface HookContract extends ContractBase {
  kind: 'hook';
  /** The engine patched. */
  engine: EngineName;
  /** Dotted target (module path then class and method). */
  target: DottedPath;
  /** Further targets of the same bridge (e.g. several observer methods), if any. */
  alsoTargets?: DottedPath[];
  /** How it attaches. */
  hookType: HookType;
  /** The signature the installer fingerprints; required for registry-installed hook types. */
  signature?: Signature;
  /** What it protects. */
  protects: Protection;
  /** When it is installed. */
  activation: Activation;
  /** The official replacement's status. */
  replacement: UpstreamStatus;
  /** The removal gate (for removed hooks: the gate that was met). */
  removalGate: RemovalGate;
  /** Kept, or removed with its disposition. */
  disposition: KeptDisposition | RemovedDisposition;
  /** Gaps that explain why it is still needed. */
  gaps?: ContractId[];
  /** Dotted path of the adapter's hook function, for hooks the generator installs. */
  implementation?: DottedPath;
}
