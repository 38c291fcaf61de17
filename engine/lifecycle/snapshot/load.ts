import type { Registry } from '../../registry/index.js';
import { createHash } from 'node:crypto';
import type { Diagnostic } from '../../diagnostics/index.js';
import { type LedgerFiles, scanLedgerFile } from '../ledger/file.js';
import { loadTrust } from '../ledger/trust.js';
import { type FoldState, LedgerFolder, initialFold } from '../fold/fold.js';
import { loadCachedSnapshot, registryFingerprint, storeCachedFold } from './store.js';
import { type Board, type RowMemo, boardFromFold } from '../board/board.js';

/** Records past the snapshot that make the warm path rewrite it. */
export const REWRITE_AFTER = 1000;

export interface LoadFoldOptions {
  /** Snapshot cache folder; none: always fold from the start. */
  cacheDir?: string;
  /** Fold only evidence at or before this instant (never cached). */
  until?: string;
  /** Leave writing the snapshot to the caller (`loadBoard` writes it with the board's rows): see `LoadedFold.storeDue`. */
  deferStore?: boolean;
  /** How a fold from the start checks hashes on a worker thread (`ReadOptions.parallelHashes`; default: from 8 MiB of ledger). */
  parallelHashes?: { minBytes?: number };
}

export interface LoadedFold {
  state: FoldState;
  /** Ledger problems: the fold covers the records before the first bad line. */
  diagnostics: Diagnostic[];
  fromCache: boolean;
  /** Board row cores from the snapshot that still hold for this fold (those of contracts the tail moved are dropped). */
  rows?: RowMemo;
  /** With `deferStore`: the snapshot is due a rewrite (none yet, a long tail folded, or no rows in it). */
  storeDue: boolean;
  /** The registry fingerprint the snapshot is keyed by (with a cache folder): computed once, for the rewrite. */
  fingerprint?: string;
  /** sha256 of the ledger bytes the fold covers (with a cache folder and a clean ledger): the snapshot's proof. */
  prefix?: string;
  /** The trusted signers' fingerprint the ledger was checked under. */
  trust: string;
  /** Snapshot cache warnings (it could not be written): the fold stands without it. */
  warnings: Diagnostic[];
}

/**
 * The fold of a registry's ledger: from the snapshot cache plus the records appended since,
 * or from the start, streaming the ledger into the fold. The cache is rewritten when there was
 * none, and once the tail past it grows long.
 */
export function loadFold(registry: Registry, files: LedgerFiles, options: LoadFoldOptions = {}): LoadedFold {
  const { cacheDir, until } = options;
  const trust = loadTrust(files.signers);
  const fingerprint = cacheDir !== undefined && until === undefined ? registryFingerprint(registry) : undefined;
  const warnings: Diagnostic[] = [];
  if (cacheDir !== undefined && fingerprint !== undefined) {
    // Resumed only from a position the snapshot proves: its seal holds and the ledger's bytes before it hash as they did.
    const cached = trust.diagnostics.length ? undefined : loadCachedSnapshot(cacheDir, files, registry, fingerprint, trust.fingerprint);
    // The tail's scan ends where a cold one would (the prefix is the one verified before) and checks
    // the head there with the cold scan's own `checkHead`: one rule, one piece of code.
    if (cached) {
      const state = cached.state;
      const folder = new LedgerFolder(registry, state, { trace: false });
      const digest = cached.digest;
      const scan = scanLedgerFile(files, { from: state.position, trust, digest }, (record) => folder.push(record));
      folder.finish();
      state.position = scan.end;
      const rows = cached.rows;
      if (rows) for (const id of folder.moved()) rows.delete(id);
      const clean = scan.diagnostics.length === 0;
      const prefix = clean ? digest.digest('hex') : undefined;
      // Rewriting the snapshot costs more than re-folding a short tail: rewrite once the tail is long.
      const storeDue = clean && (scan.count >= REWRITE_AFTER || !rows);
      if (storeDue && !options.deferStore) warnings.push(...storeCachedFold(cacheDir, files, registry, state, prefix!, fingerprint, undefined, trust.fingerprint));
      return { state, diagnostics: scan.diagnostics, fromCache: true, ...(rows ? { rows } : {}), storeDue, fingerprint, ...(prefix ? { prefix } : {}), trust: trust.fingerprint, warnings };
    }
  }
  // The records stream from the reader into the fold: none is kept. A worker thread checks the
  // hashes meanwhile; should it find a bad line, the fold is made again from a scan that names it.
  // Without history and evidence lists: what loads a fold here shows states, not their story (`explain` folds with them).
  const foldOptions = { trace: false, ...(until !== undefined ? { until } : {}) };
  // The prefix digest is the snapshot's proof: taken only when a snapshot may be written.
  const storable = cacheDir !== undefined && fingerprint !== undefined;
  let folder = new LedgerFolder(registry, initialFold(registry), foldOptions);
  let digest = storable ? createHash('sha256') : undefined;
  let scan = scanLedgerFile(files, { parallelHashes: options.parallelHashes ?? {}, trust, ...(digest ? { digest } : {}) }, (record) => folder.push(record));
  if (scan.recheck) {
    folder = new LedgerFolder(registry, initialFold(registry), foldOptions);
    digest = storable ? createHash('sha256') : undefined;
    scan = scanLedgerFile(files, { trust, ...(digest ? { digest } : {}) }, (record) => folder.push(record));
  }
  const state = folder.finish();
  if (until === undefined) state.position = scan.end;
  const storeDue = storable && scan.diagnostics.length === 0;
  const prefix = storeDue && digest ? digest.digest('hex') : undefined;
  if (storeDue && !options.deferStore) warnings.push(...storeCachedFold(cacheDir, files, registry, state, prefix!, fingerprint, undefined, trust.fingerprint));
  return { state, diagnostics: scan.diagnostics, fromCache: false, storeDue, ...(fingerprint !== undefined ? { fingerprint } : {}), ...(prefix ? { prefix } : {}), trust: trust.fingerprint, warnings };
}

export interface LoadBoardOptions {
  cacheDir?: string;
  /** Leave out evidence after this instant (ISO): the board of the past (no snapshot is used). */
  until?: string;
  /** The clock staleness is counted against (ISO); default: `until`, else now. */
  at?: string;
  /** Staleness needs a clock; off for deterministic output. */
  staleness?: boolean;
}

/**
 * What `status` and `check` show: the fold (from the snapshot when there is one) and its board.
 * Row cores come from the snapshot for every contract the new records did not move; the snapshot
 * is written back with the board's rows when it is due.
 */
export function loadBoard(registry: Registry, files: LedgerFiles, options: LoadBoardOptions = {}): { board: Board; loaded: LoadedFold } {
  const { cacheDir } = options;
  const loaded = loadFold(registry, files, { ...(cacheDir !== undefined ? { cacheDir } : {}), ...(options.until !== undefined ? { until: options.until } : {}), deferStore: true });
  const memo: RowMemo = loaded.rows ?? new Map();
  const board = boardFromFold(registry, loaded.state, options.at ?? options.until ?? new Date().toISOString(), options.staleness ?? true, memo);
  if (cacheDir !== undefined && loaded.storeDue && loaded.prefix !== undefined) loaded.warnings.push(...storeCachedFold(cacheDir, files, registry, loaded.state, loaded.prefix, loaded.fingerprint, memo, loaded.trust));
  return { board, loaded };
}
