import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Contract } from '../model/index.js';
import { type Diagnostic, diagnose, sortDiagnostics } from '../diagnostics/index.js';
import { listContractFiles, readContractFile } from './read.js';
import { Registry, type ContractEntry } from './registry.js';
import { checkSchema, shippedSchemaDir } from './schema.js';

export interface LoadResult {
  registry: Registry;
  /** Reading, parsing and schema diagnostics, sorted. Semantic rules come from `validateRegistry`. */
  diagnostics: Diagnostic[];
}

/**
 * Reads every contract under `root`: YAML with positions, then the generated JSON Schema.
 * Never throws for bad input: every problem is a diagnostic and the contract is left out.
 */
export function loadRegistry(root: string): LoadResult {
  const dir = resolve(root);
  const diagnostics: Diagnostic[] = [];
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    diagnostics.push(diagnose('registryNotFound', {}, root));
    return { registry: new Registry(dir, []), diagnostics };
  }
  const entries: ContractEntry[] = [];
  for (const path of listContractFiles(dir, diagnostics)) {
    const source = readContractFile(dir, path, diagnostics);
    if (!source) continue;
    const value = source.doc.toJS({ maxAliasCount: 0 }) as unknown;
    const kind = checkSchema(source, value, diagnostics);
    source.release();
    if (kind) entries.push({ contract: value as Contract, source });
  }
  return { registry: new Registry(dir, entries), diagnostics: sortDiagnostics(diagnostics) };
}

/**
 * The registry folder a command uses: `--registry DIR` when given, else `./contracts` when it
 * exists, else the registry shipped in this package (the embedded OrbitKV registry).
 */
export function resolveRegistryDir(cwd: string, option: string | undefined): string {
  if (option !== undefined) return resolve(cwd, option);
  const local = join(cwd, 'contracts');
  if (existsSync(local) && statSync(local).isDirectory()) return local;
  return embeddedRegistryDir();
}

/** The embedded OrbitKV registry shipped with the package. */
export function embeddedRegistryDir(): string {
  return resolve(shippedSchemaDir(), '..');
}
