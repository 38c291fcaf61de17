/** A position in a source file, 1-based like editors show it. */
export interface SourceRange {
  line: number;
  col: number;
  endLine: number;
  endCol: number;
}

export type Severity = 'error' | 'warning';

/**
 * One finding about user input. Phases collect these instead of throwing; the CLI formats them.
 * `code` is stable (`OKV` + 4 digits, banded per phase) and never reused once retired.
 */
export interface Diagnostic {
  code: string;
  severity: Severity;
  message: string;
  /** The file, relative to the registry root where there is one. */
  file?: string;
  range?: SourceRange;
  /** The contract id the finding is about, when known. */
  contract?: string;
  /** How to fix it. */
  hint?: string;
}

export function errorCount(diagnostics: readonly Diagnostic[]): number {
  return diagnostics.filter((d) => d.severity === 'error').length;
}

/** Sorted by file, then position, then code: output never depends on discovery order. */
export function sortDiagnostics(diagnostics: Diagnostic[]): Diagnostic[] {
  return [...diagnostics].sort(
    (a, b) =>
      (a.file ?? '').localeCompare(b.file ?? '') ||
      (a.range?.line ?? 0) - (b.range?.line ?? 0) ||
      (a.range?.col ?? 0) - (b.range?.col ?? 0) ||
      a.code.localeCompare(b.code),
  );
}

/**
 * A command line that cannot run, with the coded finding that says why (a registry folder that
 * does not exist, …). The CLI prints the diagnostic and exits with the usage status (2).
 */
export class UsageDiagnostic extends Error {
  constructor(readonly diagnostic: Diagnostic) {
    super(diagnostic.message);
    this.name = 'UsageDiagnostic';
  }
}
