import type { Diagnostic } from '../diagnostics/index.js';
import type { SourceAssertion, SymbolKind } from '../model/index.js';
import type { MissingReason, UnresolvableReason } from './resolve.js';
import type { SignatureDiff } from './signature.js';

/**
 * The result of checking one hook target or consumed symbol. Never a guess. Env vars, CLI
 * flags and entry-point groups are checked too, as literals in the tree (see `TargetChecker`).
 */
export type TargetOutcome = 'present' | 'missing' | 'signature-changed' | 'unresolvable-statically';

/** The result of evaluating one gap's source assertion (or one part of it). */
export type AssertionOutcome = 'holds' | 'no-longer-holds' | 'unresolvable';

/** A place in the checkout. */
export interface SourceLocation {
  file: string;
  line: number;
  col: number;
}

/** One checked hook target or interface symbol. */
export interface TargetCheck {
  /** The hook or interface contract. */
  contract: string;
  /** `hook-target`, `hook-also-target` (further targets of the same bridge) or `interface-symbol`. */
  role: 'hook-target' | 'hook-also-target' | 'interface-symbol';
  /** Dotted path, flag, env var or entry-point group. */
  target: string;
  /** What the contract expects: the interface symbol's kind, or `hook` for hook targets. */
  expects: SymbolKind | 'hook';
  outcome: TargetOutcome;
  /** Removed hooks are reported for information: their presence or absence fails nothing. */
  informational: boolean;
  /** Where it was found. */
  location?: SourceLocation;
  /** Where it was inherited from (`pkg.mod.Base`), when found on a base class. */
  inheritedFrom?: string;
  /** Why it is missing or unresolvable. */
  reason?: UnresolvableReason | MissingReason | 'kind-changed';
  /** Words for the reader. */
  detail?: string;
  /** For `signature-changed`. */
  diff?: SignatureDiff;
  /** Checkout files this result was read from. */
  files: string[];
}

/** One evaluated assertion; an `all` carries its parts. */
export interface AssertionCheck {
  /** The gap contract. */
  contract: string;
  /** Index path of this part inside the gap's `assertion` (`[]` for the whole). */
  path: number[];
  form: SourceAssertion['form'];
  /** The assertion in one line (`call-order preprocess_state before pre_forward in F G`). */
  summary: string;
  outcome: AssertionOutcome;
  /** What was seen (`preprocess_state at 41, pre_forward at 44`), or why it could not be decided. */
  detail?: string;
  location?: SourceLocation;
  /** The helper calls followed to reach the calls that decided it (`self._do_release at F:12 → Q._do_release (F)`). */
  trail?: string[];
  parts?: AssertionCheck[];
  files: string[];
}

/** What the checkout says about its own version, against the pin. */
export interface CheckoutVersion {
  pinnedVersion: string;
  pinnedCommit?: string;
  version?: string;
  /** The file or metadata the version came from. */
  versionFrom?: string;
  commit?: string;
  commitFrom?: string;
  /** `true` / `false`, or absent when the checkout does not say. */
  versionMatches?: boolean;
  commitMatches?: boolean;
}

/** Tallies of outcomes. */
export type OutcomeCounts = Partial<Record<TargetOutcome | AssertionOutcome, number>>;

/** Everything `verify` found, as data (the CLI formats it). */
export interface VerifyReport {
  engine: string;
  /** Absolute checkout root. */
  source: string;
  /** The package folder found in the checkout. */
  packageDir?: string;
  grammar: { name: string; version: string; abi: number };
  version?: CheckoutVersion;
  targets: TargetCheck[];
  assertions: AssertionCheck[];
  /** sha256 of every file read, by checkout-relative path. */
  files: Record<string, string>;
  /** Python files scanned (parsed or skipped). */
  scanned: number;
  diagnostics: Diagnostic[];
  counts: OutcomeCounts;
  /**
   * `ok`: every non-informational check present / holds; `failed`: something missing, changed,
   * no longer holding or unresolvable; `unusable`: the input could not be verified at all.
   */
  verdict: 'ok' | 'failed' | 'unusable';
  /** With a symbol-table cache: tables reused and files parsed (never changes a result). */
  scanCache?: { reused: number; parsed: number };
}
