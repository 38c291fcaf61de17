import type { Severity } from './diagnostic.js';

export interface DiagnosticDefinition<A extends unknown[] = never[]> {
  code: string;
  severity: Severity;
  /** Short rule name (used by `--format json` and docs). */
  rule: string;
  message: (...args: A) => string;
  hint?: (...args: A) => string;
  retired?: boolean;
}

export function def<A extends unknown[]>(d: DiagnosticDefinition<A>): DiagnosticDefinition<A> {
  return d;
}

