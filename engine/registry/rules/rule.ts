import type { ArgsOf, CatalogueKey, SourceRange } from '../../diagnostics/index.js';
import type { ContractEntry, Registry } from '../registry.js';

/** Where a rule points: a contract and, within it, a field path (key ranges when `key`). */
export interface RuleSite {
  entry: ContractEntry;
  path?: ReadonlyArray<string | number>;
  key?: boolean;
  /** An exact range, for findings about the text rather than a field (the modeline). */
  range?: SourceRange;
}

/** What a rule sees: the registry, the date "today" is for age checks, and a reporter. */
export interface RuleContext {
  readonly registry: Registry;
  /** `YYYY-MM-DD`; injected so specs and CI replays are deterministic. */
  readonly today: string;
  report<K extends CatalogueKey>(key: K, site: RuleSite, ...args: ArgsOf<K>): void;
}

/**
 * One semantic rule (typescript-eslint style): its id is its file name, `reports` lists the
 * catalogue keys it may emit, `check` walks the registry and reports through the context.
 */
export interface RegistryRule {
  id: string;
  description: string;
  reports: readonly CatalogueKey[];
  check(context: RuleContext): void;
}
