import type { Diagnostic } from '../diagnostics/index.js';
import { type Registry, loadRegistry, resolveRegistryDir } from '../registry/index.js';
import { type LedgerFiles, ledgerFiles } from './ledger/index.js';
import { isCalendarDate, isCalendarTimestamp } from './ledger/time.js';

/** A registry and its ledger files, as every evidence command opens them. */
export interface LedgerSession {
  registry: Registry;
  /** Loading diagnostics of the registry (the fold still runs over the contracts that loaded). */
  diagnostics: Diagnostic[];
  files: LedgerFiles;
}

export function openSession(cwd: string, registryOption: string | undefined): LedgerSession {
  const { registry, diagnostics } = loadRegistry(resolveRegistryDir(cwd, registryOption));
  return { registry, diagnostics, files: ledgerFiles(registry.root) };
}

/** `--at`: a date means the end of that day (UTC); a full timestamp is taken as is. Undefined when malformed. */
export function parseAt(value: string): string | undefined {
  if (isCalendarDate(value)) return `${value}T23:59:59.999Z`;
  if (isCalendarTimestamp(value)) return value;
  return undefined;
}
