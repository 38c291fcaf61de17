import type { ContractBase, ContractId } from './common.js';

/** A path pattern the wheel must not contain, with the reason. */
export interface ForbiddenPath {
  /** Glob over wheel member paths (`*` within a segment, `**` across segments). */
  pattern: string;
  /** Why it is retired (named in the packaging gate's error). */
  reason: string;
}

/** An entry point the package must declare. */
export interface RequiredEntryPoint {
  /** Entry-point group. */
  group: string;
  /** Entry-point name. */
  name: string;
}

/** What an adapter wheel may contain: the packaging gate. */
export interface WheelContentsRule {
  rule: 'wheel-contents';
  /** Member paths every wheel must contain (`{package}` is replaced by the import name). */
  required: string[];
  /** Retired paths and modules. */
  forbidden: ForbiddenPath[];
  /** No compiled bytecode in the wheel. */
  forbidBytecode: boolean;
  /** Engine pins in extras must be exact (`==`). */
  exactEnginePins: boolean;
}

/** What importing the adapter packages must not do. */
export interface LazyImportRule {
  rule: 'lazy-import';
  /** Modules that must stay out of `sys.modules` after importing the plugins with OrbitKV not selected. */
  forbiddenModules: string[];
  /** Importing opens no socket or Manager connection. */
  noConnection: boolean;
}

/** How old a recheck may get before contracts turn stale. */
export interface RecheckRule {
  rule: 'recheck';
  /**
   * Maximum age of the last recheck, in days.
   * @minimum 1
   * @TJS-type integer
   */
  maxAgeDays: number;
}

/** Every installed hook has a contract; the generator installs nothing else. */
export interface HookDisciplineRule {
  rule: 'hook-discipline';
  /** Hooks are installed only from hook contracts, guarded (pin, presence, signature) and verified after installation. */
  onlyContractedHooks: true;
}

/** A policy statement enforced by review or by a named gate, not mechanically by this tool. */
export interface StatementRule {
  rule: 'statement';
  /** The statement. */
  text: string;
  /** How it is enforced. */
  enforcedBy: 'review' | 'gate' | 'package-check' | 'generator';
  /** Gates that enforce it, when `enforcedBy` is `gate`. */
  gates?: ContractId[];
}

/** One policy rule. */
export type PolicyRule = WheelContentsRule | LazyImportRule | RecheckRule | HookDisciplineRule | StatementRule;

/** Packaging and runtime policy. */
export interface PolicyContract extends ContractBase {
  kind: 'policy';
  /** The rule. */
  policy: PolicyRule;
}
