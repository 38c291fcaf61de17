import type { ContractBase, ContractId, EngineName } from './common.js';

/** A gate the runtime can run itself (`orbitkv gate run`), by scenario name from the catalogue. */
export interface RunnableScenario {
  runner: 'orbitkv';
  /** Scenario name from the gate catalogue (`engine/gates`). */
  scenario: string;
}

/** A gate run by the product's own runner, by scenario name from the product policy's `scenarios`. */
export interface ProductScenarioRef {
  runner: 'product';
  /** Scenario name from the product policy. */
  scenario: string;
}

/** A gate whose evidence comes from outside (a real engine, a GPU host, an independent actor), recorded through the CLI. */
export interface ExternalScenario {
  runner: 'external';
  /** What the external run does, precisely enough to reproduce. */
  procedure: string;
}

/** What the gate needs to run. */
export interface GateEnvironment {
  /** Needs a GPU. */
  gpu: boolean;
  /** A real engine installed from the pinned release, when needed. */
  engine?: EngineName;
  /** Named hardware the evidence must come from (`A100`, `H200`), if any. */
  hardware?: string;
}

/** One axis of a gate's cell matrix (e.g. `tier: [dram, ssd]`). */
export interface MatrixAxis {
  /** Axis name. */
  axis: string;
  /** Values; every combination is a cell that needs its own pass. */
  values: string[];
}

/** Evidence a pass must carry. */
export interface EvidenceRequirement {
  /**
   * Hashes of the engine's installed files and of the adapter package, before and after; they
   * must match. `engine-and-adapter` is how a gate says it needs the real engine, installed from
   * its pin: a run on a stand-in engine (`orbitkv gate run`, whose results are bound to no
   * engine release) passes none of its cells, and no catalogue scenario may qualify it.
   */
  hashes: 'engine-and-adapter' | 'adapter' | 'none';
  /** An actor other than the contract's author must supply the pass. */
  independent: boolean;
}

/** A qualification gate. */
export interface GateContract extends ContractBase {
  kind: 'gate';
  /** What runs. */
  scenario: RunnableScenario | ProductScenarioRef | ExternalScenario;
  /** What it needs. */
  environment: GateEnvironment;
  /** What a pass qualifies, in words (profile, tier, model class). */
  qualifies: string;
  /** Contracts whose removal or reopening it gates (informative; the gates list the links). */
  qualifiesContracts?: ContractId[];
  /** Cell matrix; a gate with none is one cell. */
  matrix?: MatrixAxis[];
  /** Evidence requirements. */
  evidence: EvidenceRequirement;
}
