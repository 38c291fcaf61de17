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
    if (spec !== undefined) fold.context = { spec, ...fold.context };
  }
  return cached.state;
}

export function storeCachedFold(dir: string, files: LedgerFiles, registry: Registry, state: FoldState, fingerprint = registryFingerprint(registry)): void {
  mkdirSync(dir, { recursive: true });
  // The static requirement specs are rebuilt from the registry; storing them would only add bytes.
  const contracts: Record<string, ContractFold> = {};
  for (const [id, fold] of Object.entries(state.contracts)) {
    const { spec: _spec, ...context } = fold.context as { spec?: unknown };
    contracts[id] = { ...fold, context };
  }
  const body: CacheFile = { machines: machinesDefinitionHash(), registry: fingerprint, ledger: resolve(files.ledger), state: { ...state, contracts } };
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
