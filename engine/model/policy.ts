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

/** A product-owned qualification scenario, run by the product's own runner (gate `scenario.runner: product`). */
export interface ProductScenario {
  /**
   * Scenario name, unique in the registry.
   * @pattern ^[a-z0-9][a-z0-9.-]*$
   */
  name: string;
  /** What it exercises, precisely enough to reproduce. */
  description: string;
  /** What the scenario needs to run. */
  needs: 'cpu' | 'gpu' | 'engine';
  /**
   * An ES module, relative to the registry folder, that `orbitkv gate run` runs for each cell of
   * a gate naming the scenario (CPU scenarios only): it exports `run(cell)` over the same
   * harness as the catalogue's scenarios (a real Manager, engine stand-ins on the generated
   * client) and may export `parameters` (`{defaults, axes}`) mapping the gate's matrix values.
   * Without it the product's own runner records the results (`orbitkv evidence add`).
   * @pattern ^[A-Za-z0-9_][A-Za-z0-9_./-]*\.(mjs|js|ts|mts)$
   */
  module?: string;
}

/** A labelled project URL of the generated packages' metadata. */
export interface ProjectUrl {
  /**
   * @pattern ^[A-Za-z][A-Za-z0-9 ._-]*$
   */
  label: string;
  /**
   * @pattern ^https://[^\s"'<>\\]+$
   */
  url: string;
}

/**
 * Who the registry's product is: the name its adapters, messages and packages carry, the prefix
 * of its adapter packages and of its environment variables, and the lifecycle and scenario names
 * of its own runtime beyond the Manager's.
 */
export interface ProductRule {
  rule: 'product';
  /**
   * Display name in messages and package metadata (`OrbitKV`).
   * @pattern ^[A-Za-z][A-Za-z0-9 ._-]*$
   */
  name: string;
  /**
   * Prefix of the adapter import packages (`orbitkv` gives `orbitkv_vllm`).
   * @pattern ^[a-z][a-z0-9]*$
   */
  packagePrefix: string;
  /**
   * Prefix of the product's environment variables (`ORBITKV` gives `ORBITKV_MANAGER_SOCKET`).
   * @pattern ^[A-Z][A-Z0-9]*$
   */
  envPrefix: string;
  /** Package metadata: SPDX license expression of the generated packages. */
  license?: string;
  /** Package metadata: project URLs (`Homepage`, `Source`). */
  urls?: ProjectUrl[];
  /** Runtime lifecycle names of the product's own runtime, guarded by hooks beside the Manager's. */
  lifecycles?: string[];
  /** The product's own qualification scenarios (gates with `scenario.runner: product`). */
  scenarios?: ProductScenario[];
}

/** One policy rule. */
export type PolicyRule = WheelContentsRule | LazyImportRule | RecheckRule | HookDisciplineRule | StatementRule | ProductRule;

/** Packaging and runtime policy. */
export interface PolicyContract extends ContractBase {
  kind: 'policy';
  /** The rule. */
  policy: PolicyRule;
}
