import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
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

interface CacheFile {
  machines: string;
  registry: string;
  ledger: string;
  state: FoldState;
  /** Gate results, once each: every listener of a record shares its result, so contexts store indexes here. */
  results: unknown[];
}

type WithResults = { results?: unknown; accepted?: unknown };

/**
 * Replaces each shared gate result and independent evidence in a context by its index in the
 * table (or back). Requirement contexts hold arrays by slot; gate contexts a map and a list.
 */
function mapResults(context: WithResults, map: (value: unknown) => unknown): WithResults {
  const out: WithResults = { ...context };
  const { results, accepted } = context;
  if (Array.isArray(results)) out.results = results.map((r) => (r === null ? null : map(r)));
  else if (results && typeof results === 'object') out.results = Object.fromEntries(Object.entries(results).map(([k, r]) => [k, map(r)]));
  if (Array.isArray(accepted)) out.accepted = accepted.map((a) => (a === null ? null : Array.isArray(a) ? a.map(map) : map(a)));
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
  const file = cacheFile(dir, files);
  if (!existsSync(file)) return undefined;
  let cached: CacheFile;
  try {
    cached = JSON.parse(readFileSync(file, 'utf8')) as CacheFile;
  } catch {
    return undefined; // A torn cache write: fold from the start and rewrite it.
  }
  if (cached.machines !== machinesDefinitionHash() || cached.registry !== fingerprint || cached.ledger !== resolve(files.ledger)) return undefined;
  if (!ledgerStillEndsWith(files, cached.state.position.offset, cached.state.position.hash)) return undefined;
  const world = worldOf(registry);
  for (const [id, fold] of Object.entries(cached.state.contracts)) {
    const spec = (world.tracked.get(id)?.initial as { spec?: unknown } | undefined)?.spec;
    const context = mapResults(fold.context, (i) => cached.results[i as number]);
    fold.context = spec !== undefined ? { spec, ...context } : context;
  }
  return cached.state;
}

export function storeCachedFold(dir: string, files: LedgerFiles, registry: Registry, state: FoldState, fingerprint = registryFingerprint(registry)): void {
  mkdirSync(dir, { recursive: true });
  // The static requirement specs are rebuilt from the registry, and the per-contract evidence
  // lists serve only `explain`, which folds from the start: storing either would only add bytes.
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
    const { spec: _spec, ...context } = fold.context as { spec?: unknown };
    contracts[id] = { ...fold, context: mapResults(context, encode), evidence: [] };
  }
  const body: CacheFile = { machines: machinesDefinitionHash(), registry: fingerprint, ledger: resolve(files.ledger), state: { ...state, contracts }, results };
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
