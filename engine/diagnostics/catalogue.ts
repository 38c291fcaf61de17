import type { Diagnostic, SourceRange } from './diagnostic.js';
import type { DiagnosticDefinition } from './definition.js';
import { REGISTRY_DIAGNOSTICS } from './bands/registry.js';
import { LEDGER_DIAGNOSTICS } from './bands/ledger.js';
import { GENERATE_DIAGNOSTICS } from './bands/generate.js';
import { VERIFY_DIAGNOSTICS } from './bands/verify.js';
import { RUNTIME_DIAGNOSTICS } from './bands/runtime.js';

/**
 * The diagnostic catalogue: every message the tool shows about user input lives here, with a
 * stable code. Bands: 1xxx reading and parsing files, 2xxx schema, 3xxx registry semantics,
 * 4xxx evidence ledger, 5xxx generators and packaging, 6xxx source verification, 7xxx the runtime (Manager).
 * Retired codes stay listed with `retired: true` and are never reused.
 * Each band lives in `bands/<phase>.ts`; a meta-spec checks codes are unique and in band.
 */
export const CATALOGUE = {
  ...REGISTRY_DIAGNOSTICS,
  ...LEDGER_DIAGNOSTICS,
  ...GENERATE_DIAGNOSTICS,
  ...VERIFY_DIAGNOSTICS,
  ...RUNTIME_DIAGNOSTICS,
} as const;


export type CatalogueKey = keyof typeof CATALOGUE;

/** The message arguments a catalogue entry takes. */
export type ArgsOf<K extends CatalogueKey> = (typeof CATALOGUE)[K] extends DiagnosticDefinition<infer A> ? A : never;

/** Where a diagnostic points. */
export interface DiagnosticSite {
  file?: string;
  range?: SourceRange;
  contract?: string;
}

/** Builds a diagnostic from the catalogue: the only way phases create one. */
export function diagnose<K extends CatalogueKey>(key: K, site: DiagnosticSite, ...args: ArgsOf<K>): Diagnostic {
  const d = CATALOGUE[key] as unknown as DiagnosticDefinition<ArgsOf<K>>;
  const hint = d.hint?.(...args);
  return {
    code: d.code,
    severity: d.severity,
    message: d.message(...args),
    ...(site.file !== undefined ? { file: site.file } : {}),
    ...(site.range ? { range: site.range } : {}),
    ...(site.contract ? { contract: site.contract } : {}),
    ...(hint ? { hint } : {}),
  };
}
