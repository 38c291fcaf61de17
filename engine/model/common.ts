/**
 * Shared vocabulary of every contract kind. This folder imports nothing: it is the source of
 * truth the JSON Schema is generated from (`npm run schema`), so every field carries the
 * JSDoc an editor shows on hover.
 */

/**
 * A contract's stable identifier: lower-case words joined by `-` or `.`, unique across the registry.
 * @pattern ^[a-z0-9][a-z0-9.-]*[a-z0-9]$
 */
export type ContractId = string;

/**
 * An engine's short name as pinned by an `engine` contract (e.g. `vllm`, `sglang`, `lmcache`).
 * @pattern ^[a-z][a-z0-9_-]*$
 */
export type EngineName = string;

/**
 * A calendar date, `YYYY-MM-DD`.
 * @pattern ^\d{4}-\d{2}-\d{2}$
 */
export type IsoDate = string;

/**
 * A full 40-hex-digit git commit.
 * @pattern ^[0-9a-f]{40}$
 */
export type CommitSha = string;

/**
 * A version as the engine publishes it (PEP 440 style: `0.31.0`, `0.5.21`).
 * @pattern ^\d+(\.\d+)*([a-z]+\d*)?(\.post\d+)?(\.dev\d+)?$
 */
export type Version = string;

/**
 * A release line: the `major.minor` series a version belongs to (`0.31`, `0.5`).
 * @pattern ^\d+\.\d+$
 */
export type ReleaseLine = string;

/**
 * A dotted Python path: module, then class and attribute names
 * (e.g. `sglang.srt.managers.tp_worker.TpModelWorker.init_cuda_graphs`).
 * @pattern ^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$
 */
export type DottedPath = string;

/**
 * An environment variable name.
 * @pattern ^[A-Z][A-Z0-9_]*$
 */
export type EnvVarName = string;

/** Where in the seed audit (or a later recheck) a contract comes from. */
export interface SourceCitation {
  /** The document: the seed's title, or a recheck's name. */
  document: string;
  /** The section heading within it (e.g. `Remaining Hook contracts`). */
  section: string;
  /** A short verbatim excerpt that the contract transcribes. */
  quote?: string;
}

/** Fields every contract has. */
export interface ContractBase {
  /** Stable id; other contracts and the evidence ledger refer to it. Never reuse a retired id. */
  id: ContractId;
  /** One line a reader of the board understands. */
  title: string;
  /** Where this contract comes from in the audit. */
  source: SourceCitation;
  /** Free text for reviewers: context that no field captures. */
  notes?: string;
}
