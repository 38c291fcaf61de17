import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RowCore, RowMemo } from '../board/board.js';
import type { Registry } from '../../registry/index.js';
import { sha256 } from '../ledger/canonical.js';
import type { LedgerFiles } from '../ledger/file.js';
import { type ContractFold, type FoldState } from './fold.js';
import { machinesDefinitionHash, worldOf } from './world.js';

/** The snapshot cache folder under a working directory; git-ignored. */
export const CACHE_DIR = '.orbitkv-cache';

/** Where the snapshot cache lives: `$ORBITKV_CACHE_DIR`, else `.orbitkv-cache/` under `cwd`. */
export function cacheDirFor(cwd: string, env: NodeJS.ProcessEnv): string {
  return resolve(cwd, env.ORBITKV_CACHE_DIR ?? CACHE_DIR);
}

/** Identifies the registry's content: any contract edit gives another fold. */
export function registryFingerprint(registry: Registry): string {
  return sha256(JSON.stringify(registry.contracts));
}

let codeHash: string | undefined;

/**
 * The lifecycle code a snapshot was made by: the text of every module of the machines, the fold,
 * the matrix and the board. Guards call helpers whose text the machine definitions' hash does not
 * cover, and the board rows in the snapshot are that code's output: any edit invalidates it.
 */
export function lifecycleCodeHash(): string {
  if (codeHash === undefined) {
    const here = fileURLToPath(import.meta.url);
    const root = fileURLToPath(new URL('..', import.meta.url));
    const parts: string[] = [];
    for (const dir of ['machines', 'fold', 'matrix', 'board']) {
      const folder = join(root, dir);
      if (!existsSync(folder)) {
        // Bundled into one file (the GPU-host benches): that file is the code.
        parts.length = 0;
        parts.push(readFileSync(here, 'utf8'));
        break;
      }
      for (const name of readdirSync(folder).sort()) if (/\.(ts|js|mjs)$/.test(name)) parts.push(`${dir}/${name}`, readFileSync(join(folder, name), 'utf8'));
    }
    codeHash = sha256(parts.join('\0'));
  }
  return codeHash;
}

interface CacheFile {
  machines: string;
  code: string;
  registry: string;
  ledger: string;
  state: FoldState;
  /** Gate results, once each: every listener of a record shares its result, so contexts store indexes here. */
  results: unknown[];
  /** The board's row cores for this fold (absent until a board was built from it). */
  rows?: Record<string, RowCore>;
}

/** A snapshot: the fold at a ledger position, and the board row cores computed from it. */
export interface CachedSnapshot {
  state: FoldState;
  rows?: RowMemo;
}

type WithResults = { results?: unknown; accepted?: unknown };

/**
 * Replaces, in place, each shared gate result and independent evidence in a context by its index
 * in the table (or back). Requirement contexts hold arrays by slot; gate contexts a map and a list.
 */
function mapResultsInPlace(context: WithResults, map: (value: unknown) => unknown): void {
  const { results, accepted } = context;
  if (Array.isArray(results)) {
    for (let i = 0; i < results.length; i++) if (results[i] !== null) results[i] = map(results[i]);
  } else if (results && typeof results === 'object') {
    const byCell = results as Record<string, unknown>;
    for (const k of Object.keys(byCell)) byCell[k] = map(byCell[k]);
  }
  if (Array.isArray(accepted)) {
    for (let i = 0; i < accepted.length; i++) {
      const a = accepted[i];
      if (a === null) continue;
      if (Array.isArray(a)) for (let j = 0; j < a.length; j++) a[j] = map(a[j]);
      else accepted[i] = map(a);
    }
  }
}

/** `mapResultsInPlace` on a copy: the live fold's context and its arrays are left as they are. */
function mapResults(context: WithResults, map: (value: unknown) => unknown): WithResults {
  const out: WithResults = { ...context };
  const { results, accepted } = context;
  if (Array.isArray(results)) out.results = results.slice();
  else if (results && typeof results === 'object') out.results = { ...results };
  if (Array.isArray(accepted)) out.accepted = accepted.map((a) => (Array.isArray(a) ? a.slice() : a));
  mapResultsInPlace(out, map);
  return out;
}

function cacheFile(dir: string, files: LedgerFiles): string {
  return join(dir, `fold-${sha256(resolve(files.ledger)).slice(0, 16)}.json`);
}

/**
 * The cached fold for this registry and ledger, when the machine definitions and the registry
 * are the ones it was made with and the ledger still holds the record it ended at. Only the
 * bytes after that position need reading then. Undefined otherwise.
 */
export function loadCachedFold(dir: string, files: LedgerFiles, registry: Registry, fingerprint = registryFingerprint(registry)): FoldState | undefined {
  return loadCachedSnapshot(dir, files, registry, fingerprint)?.state;
}

/** The cached snapshot (fold and board rows) under the same conditions as `loadCachedFold`. */
export function loadCachedSnapshot(dir: string, files: LedgerFiles, registry: Registry, fingerprint = registryFingerprint(registry)): CachedSnapshot | undefined {
  const file = cacheFile(dir, files);
  if (!existsSync(file)) return undefined;
  let cached: CacheFile;
  try {
    cached = JSON.parse(readFileSync(file, 'utf8')) as CacheFile;
  } catch {
    return undefined; // A torn cache write: fold from the start and rewrite it.
  }
  if (cached.machines !== machinesDefinitionHash() || cached.code !== lifecycleCodeHash() || cached.registry !== fingerprint || cached.ledger !== resolve(files.ledger)) return undefined;
  try {
    return decodeSnapshot(cached, files, registry);
  } catch {
    return undefined; // A body that does not decode (edited by hand): the cache is disposable, fold from the start.
  }
}

function decodeSnapshot(cached: CacheFile, files: LedgerFiles, registry: Registry): CachedSnapshot | undefined {
  if (!ledgerStillEndsWith(files, cached.state.position.offset, cached.state.position.hash)) return undefined;
  const world = worldOf(registry);
  const table = cached.results;
  const fromTable = (i: unknown) => table[i as number];
  for (const [id, fold] of Object.entries(cached.state.contracts)) {
    // Parsed just now, so owned: filled in place. The stored `spec` placeholder keeps the key order of a fresh context.
    const context = fold.context as WithResults & { spec?: unknown };
    mapResultsInPlace(context, fromTable);
    if ('spec' in context) context.spec = (world.tracked.get(id)?.initial as { spec?: unknown } | undefined)?.spec;
  }
  if (!cached.rows) return { state: cached.state };
  // Rows are stored without what the registry says (id, kind, title): put back, in the row's key order.
  const rows: RowMemo = new Map();
  for (const id of Object.keys(cached.rows)) {
    const core = cached.rows[id]!;
    const contract = registry.get(id);
    if (!contract) continue;
    core.row = { id, kind: contract.kind, title: contract.title, ...(core.row as Omit<RowCore['row'], 'id' | 'kind' | 'title'>) };
    rows.set(id, core);
  }
  return { state: cached.state, rows };
}

export function storeCachedFold(dir: string, files: LedgerFiles, registry: Registry, state: FoldState, fingerprint = registryFingerprint(registry), rows?: RowMemo): void {
  mkdirSync(dir, { recursive: true });
  // The static requirement specs are rebuilt from the registry, and the per-contract history and
  // evidence lists serve only `explain`, which folds from the start: storing them would only add
  // bytes (a contract's `since` is kept).
  const contracts: Record<string, ContractFold> = {};
  const results: unknown[] = [];
  const index = new Map<unknown, number>();
  const encode = (r: unknown) => {
    let i = index.get(r);
    if (i === undefined) {
      i = results.length;
      results.push(r);
      index.set(r, i);
    }
    return i;
  };
  for (const [id, fold] of Object.entries(state.contracts)) {
    // The spec is rebuilt from the registry on load: stored as a placeholder, first, where a fresh context has it.
    const context = fold.context as { spec?: unknown };
    const stored = 'spec' in context ? { ...context, spec: 0 } : context;
    contracts[id] = { ...fold, context: mapResults(stored as WithResults, encode), history: [], evidence: [] };
  }
  const stored = rows ? Object.fromEntries([...rows].map(([id, core]) => {
    const { id: _id, kind: _kind, title: _title, ...row } = core.row;
    return [id, { ...core, row }];
  })) : undefined;
  const body: CacheFile = { machines: machinesDefinitionHash(), code: lifecycleCodeHash(), registry: fingerprint, ledger: resolve(files.ledger), state: { ...state, contracts }, results, ...(stored ? { rows: stored as Record<string, RowCore> } : {}) };
  const file = cacheFile(dir, files);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(body));
  renameSync(tmp, file);
}

/** The line ending at `offset` carries `hash` (the suffix every ledger line has). */
function ledgerStillEndsWith(files: LedgerFiles, offset: number, hash: string): boolean {
  if (offset === 0) return true;
  const suffix = `"hash":"${hash}"}\n`;
  if (!existsSync(files.ledger) || offset < suffix.length) return false;
  const fd = openSync(files.ledger, 'r');
  try {
    const buffer = Buffer.alloc(suffix.length);
    const n = readSync(fd, buffer, 0, suffix.length, offset - suffix.length);
    return n === suffix.length && buffer.toString('utf8') === suffix;
  } finally {
    closeSync(fd);
  }
}
