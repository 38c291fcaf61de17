import { createHash, createHmac, randomBytes, timingSafeEqual, type Hash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RowCore, RowMemo } from '../board/board.js';
import type { Registry } from '../../registry/index.js';
import { sha256 } from '../ledger/canonical.js';
import type { LedgerFiles } from '../ledger/file.js';
import { openRegular } from '../ledger/regular.js';
import { type Diagnostic, diagnose } from '../../diagnostics/index.js';
import { type ContractFold, type FoldState } from '../fold/fold.js';
import { machinesDefinitionHash, worldOf } from '../fold/world.js';

/** The snapshot cache folder under a working directory; git-ignored. */
export const CACHE_DIR = '.orbitkv-cache';

/**
 * Where the snapshot cache lives: `$ORBITKV_CACHE_DIR`, else `.orbitkv-cache/` under `cwd`;
 * undefined (no cache, with warning OKV4402 from `cacheDirNotice`) when the variable is set empty,
 * which would otherwise mean the working folder itself.
 */
export function cacheDirFor(cwd: string, env: NodeJS.ProcessEnv): string | undefined {
  const named = env.ORBITKV_CACHE_DIR;
  if (named !== undefined && named.trim() === '') return undefined;
  return resolve(cwd, named ?? CACHE_DIR);
}

/** The warning `cacheDirFor` gives no cache for. */
export function cacheDirNotice(env: NodeJS.ProcessEnv): Diagnostic[] {
  const named = env.ORBITKV_CACHE_DIR;
  return named !== undefined && named.trim() === '' ? [diagnose('cacheDirEmpty', {})] : [];
}

const fingerprints = new WeakMap<Registry, string>();

/**
 * Identifies the registry's content: any contract edit gives another fold. Computed once per
 * registry, as its lifecycle index is (`worldOf`): a registry is not changed once loaded (an
 * edited file is a new registry).
 */
export function registryFingerprint(registry: Registry): string {
  let known = fingerprints.get(registry);
  if (known === undefined) {
    known = sha256(JSON.stringify(registry.contracts));
    fingerprints.set(registry, known);
  }
  return known;
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
    for (const dir of ['machines', 'fold', 'matrix', 'board', 'snapshot']) {
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
  /** The trusted signers' fingerprint the prefix was checked under. */
  trust: string;
  /** sha256 of the ledger's bytes before `state.position.offset`: the warm path re-hashes them and compares. */
  prefix: string;
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

/** A snapshot file exists for this ledger (valid or not: loading decides). */
export function hasSnapshot(dir: string, files: LedgerFiles): boolean {
  return existsSync(cacheFile(dir, files));
}

function cacheFile(dir: string, files: LedgerFiles): string {
  return join(dir, `fold-${sha256(resolve(files.ledger)).slice(0, 16)}.json`);
}

/**
 * The cached fold for this registry and ledger, when the machine definitions and the registry
 * are the ones it was made with and the ledger still holds the record it ended at. Only the
 * bytes after that position need reading then. Undefined otherwise.
 */
export function loadCachedFold(dir: string, files: LedgerFiles, registry: Registry, fingerprint = registryFingerprint(registry), trust = ''): FoldState | undefined {
  return loadCachedSnapshot(dir, files, registry, fingerprint, trust)?.state;
}

/**
 * The cached snapshot (fold and board rows) under the same conditions as `loadCachedFold`. The
 * snapshot is read only when its seal (an HMAC under this cache folder's private key) matches,
 * so a hand-edited state is never shown; and only resumed when the ledger's bytes before its
 * position hash to the digest it was made from, so an edit, swap or removal anywhere in the prefix
 * (mtime put back or not) sends the fold back to the start, which names the bad line. `digest`
 * comes back holding the hash of that prefix, ready to be continued over the tail.
 */
export function loadCachedSnapshot(dir: string, files: LedgerFiles, registry: Registry, fingerprint = registryFingerprint(registry), trust = ''): (CachedSnapshot & { digest: Hash }) | undefined {
  const file = cacheFile(dir, files);
  if (!existsSync(file)) return undefined;
  let cached: CacheFile;
  try {
    const key = cacheKey(dir, false);
    if (!key) return undefined;
    // The seal is checked over the file's bytes as read; only a body it covers is decoded, once.
    const bytes = readFileSync(file);
    const nl = bytes.indexOf(0x0a);
    if (nl < 0) return undefined;
    const seal = Buffer.from(bytes.toString('latin1', 0, nl), 'hex');
    const body = bytes.subarray(nl + 1);
    const expected = createHmac('sha256', key).update(body).digest();
    if (seal.length !== expected.length || !timingSafeEqual(seal, expected)) return undefined; // Edited, torn or sealed under another key.
    cached = JSON.parse(body.toString('utf8')) as CacheFile;
  } catch {
    return undefined; // A torn cache write: fold from the start and rewrite it.
  }
  if (cached.machines !== machinesDefinitionHash() || cached.code !== lifecycleCodeHash() || cached.registry !== fingerprint || cached.ledger !== resolve(files.ledger) || cached.trust !== trust) return undefined;
  try {
    const offset = cached.state.position.offset;
    if (!Number.isSafeInteger(offset) || offset < 0) return undefined;
    const digest = prefixDigest(files, offset);
    if (!digest || digest.copy().digest('hex') !== cached.prefix) return undefined;
    const decoded = decodeSnapshot(cached, registry);
    return decoded && { ...decoded, digest };
  } catch {
    return undefined; // A body that does not decode: the cache is disposable, fold from the start.
  }
}

/** The sha256 state over the ledger's first `offset` bytes; undefined when it is not a regular file that long. */
function prefixDigest(files: LedgerFiles, offset: number): Hash | undefined {
  const hash = createHash('sha256');
  if (offset === 0) return hash;
  const opened = openRegular(files.ledger);
  if (!('fd' in opened)) return undefined;
  try {
    if (opened.size < offset) return undefined;
    const chunk = Buffer.allocUnsafe(Math.min(offset, 4 << 20));
    for (let at = 0; at < offset; ) {
      const n = readSync(opened.fd, chunk, 0, Math.min(chunk.length, offset - at), at);
      if (n === 0) return undefined;
      hash.update(n === chunk.length ? chunk : chunk.subarray(0, n));
      at += n;
    }
    return hash;
  } finally {
    closeSync(opened.fd);
  }
}

/**
 * The cache folder's private key (32 random bytes, mode 0600, made on first write): snapshots
 * are sealed with it. Undefined when there is none (and `create` is false) or it is unreadable.
 */
function cacheKey(dir: string, create: boolean): Buffer | undefined {
  const file = join(dir, 'seal.key');
  try {
    const key = readFileSync(file);
    return key.length === 32 ? key : undefined;
  } catch (error) {
    if (!create || (error as NodeJS.ErrnoException).code !== 'ENOENT') return undefined;
  }
  const key = randomBytes(32);
  try {
    writeFileSync(file, key, { flag: 'wx', mode: 0o600 });
    return key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return cacheKey(dir, false);
    throw error;
  }
}

function decodeSnapshot(cached: CacheFile, registry: Registry): CachedSnapshot | undefined {
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

/**
 * Writes the snapshot of `state` (the fold of the ledger's bytes before `state.position.offset`,
 * whose sha256 is `prefix`), sealed under the folder's key. The cache only saves time: a folder
 * that cannot be written gives warning OKV4401 and the command carries on without it.
 */
export function storeCachedFold(dir: string, files: LedgerFiles, registry: Registry, state: FoldState, prefix: string, fingerprint = registryFingerprint(registry), rows?: RowMemo, trust = ''): Diagnostic[] {
  try {
    writeSnapshot(dir, files, registry, state, prefix, fingerprint, rows, trust);
    return [];
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === undefined) throw error;
    return [diagnose('cacheUnwritable', { file: dir }, dir, code)];
  }
}

function writeSnapshot(dir: string, files: LedgerFiles, registry: Registry, state: FoldState, prefix: string, fingerprint: string, rows: RowMemo | undefined, trust: string): void {
  mkdirSync(dir, { recursive: true });
  const key = cacheKey(dir, true)!;
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
  const body: CacheFile = { machines: machinesDefinitionHash(), code: lifecycleCodeHash(), registry: fingerprint, ledger: resolve(files.ledger), trust, prefix, state: { ...state, contracts }, results, ...(stored ? { rows: stored as Record<string, RowCore> } : {}) };
  const text = JSON.stringify(body);
  const file = cacheFile(dir, files);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${createHmac('sha256', key).update(text).digest('hex')}\n${text}`);
  renameSync(tmp, file);
}
