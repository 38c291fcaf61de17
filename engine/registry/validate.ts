import { CATALOGUE, type Diagnostic, diagnose, sortDiagnostics } from '../diagnostics/index.js';
import type { Registry } from './registry.js';
import { rangeAtPath } from './source.js';
import { RULES, type RegistryRule, type RuleContext } from './rules/index.js';

export interface ValidateOptions {
  /** `YYYY-MM-DD` the age checks measure against; default: today (UTC). */
  today?: string;
  /** The rules to run; default: all of them. */
  rules?: readonly RegistryRule[];
}

/**
 * Runs the semantic rules over a loaded registry: references resolve and have the right kind,
 * hooks carry removal gates and coverage, statuses agree with their upstream contracts, pins
 * agree. Returns the diagnostics sorted; never throws for bad contracts.
 *
 * @example
 * const { registry, diagnostics } = loadRegistry('contracts');
 * const all = [...diagnostics, ...validateRegistry(registry)];
 */
export function validateRegistry(registry: Registry, options: ValidateOptions = {}): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const context: RuleContext = {
    registry,
    today: options.today ?? new Date().toISOString().slice(0, 10),
    report(key, site, ...args) {
      const { entry } = site;
      const range = site.range ?? rangeAtPath(entry.source, site.path ?? [], site.key ?? false);
      diagnostics.push(diagnose(key, { file: entry.source.file, range, contract: entry.contract.id }, ...args));
    },
  };
  for (const rule of options.rules ?? RULES) rule.check(context);
  return sortDiagnostics(diagnostics);
}

/**
 * The findings that forbid emitting code from a registry: every error, and every placeholder
 * `orbitkv new` left (a `FILL` target must never reach a generated hook installer). Warnings
 * such as a recheck being due stay `validate`'s business.
 */
export function generationBlockers(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  return diagnostics
    .filter((d) => d.severity === 'error' || d.code === CATALOGUE.placeholderLeft.code)
    .map((d) => (d.severity === 'error' ? d : { ...d, severity: 'error' as const }));
}
