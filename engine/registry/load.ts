import { existsSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startModuleWorker } from '../threads/module-worker.js';
import type { Contract } from '../model/index.js';
import { type Diagnostic, UsageDiagnostic, diagnose, sortDiagnostics } from '../diagnostics/index.js';
import { loadContractFile } from './load-file.js';
import type { LoadWorkerInput, LoadedBatch } from './load-worker.js';
import { listContractFiles } from './read.js';
import { Registry, type ContractEntry, type RefusedContract } from './registry.js';
import { shippedSchemaDir } from './schema.js';
import { ContractSource } from './source.js';

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
  const refused: RefusedContract[] = [];
  for (const path of listContractFiles(dir, diagnostics)) {
    const entry = loadContractFile(dir, path, diagnostics, refused);
    if (entry) entries.push(entry);
  }
  return { registry: new Registry(dir, entries, refused), diagnostics: sortDiagnostics(diagnostics) };
}

export interface ParallelOptions {
  /** Worker threads; default: one per available core, at most 16, none below `threshold` files. */
  workers?: number;
  /** Below this many files, load on this thread: starting workers costs more than it saves. */
  threshold?: number;
}

/**
 * `loadRegistry` spread over worker threads: each parses a slice of the files (YAML and schema
 * are CPU-bound, and the YAML parser dominates) and sends back plain values; positions are
 * parsed again on this thread only for the files a diagnostic points into. Same result as
 * `loadRegistry`, same order.
 */
export async function loadRegistryParallel(root: string, options: ParallelOptions = {}): Promise<LoadResult> {
  const dir = resolve(root);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return loadRegistry(root);
  const diagnostics: Diagnostic[] = [];
  const paths = listContractFiles(dir, diagnostics);
  const threshold = options.threshold ?? 500;
  // By default no worker gets fewer than 100 files: below that, its start-up costs more than it
  // saves. Running from TypeScript sources (tsx), each worker would start its own compiler: one
  // thread is faster there unless workers are asked for.
  // With fewer than 4 cores this thread's share (receiving, then the rules) leaves too little to gain.
  const fromSources = extname(fileURLToPath(import.meta.url)) === '.ts';
  const cores = availableParallelism();
  const workers = Math.max(1, options.workers ?? (fromSources || cores < 4 ? 1 : Math.min(cores, 16, Math.ceil(paths.length / 100))));
  if (paths.length < threshold || workers < 2) {
    const entries: ContractEntry[] = [];
    const refused: RefusedContract[] = [];
    for (const path of paths) {
      const entry = loadContractFile(dir, path, diagnostics, refused);
      if (entry) entries.push(entry);
    }
    return { registry: new Registry(dir, entries, refused), diagnostics: sortDiagnostics(diagnostics) };
  }
  const size = Math.ceil(paths.length / workers);
  const slices = Array.from({ length: workers }, (_, i) => paths.slice(i * size, (i + 1) * size)).filter((s) => s.length > 0);
  const results = await Promise.all(slices.map((slice) => runLoadWorker({ root: dir, paths: slice })));
  const entries: ContractEntry[] = [];
  const refused: RefusedContract[] = [];
  const utf8 = new TextDecoder();
  for (const batches of results) {
    for (const { files, bytes } of batches) {
      for (const loaded of files) {
        diagnostics.push(...loaded.diagnostics);
        if (loaded.refused) refused.push(loaded.refused);
        const at = loaded.text;
        if (loaded.contract !== undefined && loaded.file !== undefined && at !== undefined) {
          const text = () => utf8.decode(new Uint8Array(bytes, at[0], at[1]));
          entries.push({ contract: loaded.contract as Contract, source: new ContractSource(loaded.file, loaded.path, text) });
        }
      }
    }
  }
  return { registry: new Registry(dir, entries, refused), diagnostics: sortDiagnostics(diagnostics) };
}

function runLoadWorker(input: LoadWorkerInput): Promise<LoadedBatch[]> {
  return new Promise((done, fail) => {
    const worker = startModuleWorker(import.meta.url, 'load-worker', input);
    const result: LoadedBatch[] = [];
    let finished = false;
    worker.on('message', (message: LoadedBatch | null) => {
      if (message === null) finished = true;
      else result.push(message);
    });
    worker.once('error', fail);
    worker.once('exit', (code) => {
      if (finished) done(result);
      else fail(new Error(`registry load worker exited with code ${code} before it finished`));
    });
  });
}

/**
 * The registry folder a command uses: `--registry DIR` when given, else `./contracts` when it
 * exists, else the registry shipped in this package (the embedded OrbitKV registry). A named
 * folder that does not exist throws `UsageDiagnostic` (OKV1001): the CLI exits 2.
 */
export function resolveRegistryDir(cwd: string, option: string | undefined): string {
  if (option !== undefined) {
    const dir = resolve(cwd, option);
    // A named registry that is not there is a mistyped command line, not an empty registry.
    if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageDiagnostic(diagnose('registryNotFound', {}, option));
    return dir;
  }
  const local = join(cwd, 'contracts');
  if (existsSync(local) && statSync(local).isDirectory()) return local;
  return embeddedRegistryDir();
}

/** The embedded OrbitKV registry shipped with the package. */
export function embeddedRegistryDir(): string {
  return resolve(shippedSchemaDir(), '..');
}
