import type { Registry } from '../../registry/index.js';
import type { Diagnostic } from '../../diagnostics/index.js';
import { type LedgerFiles, scanLedgerFile } from '../ledger/file.js';
import { type FoldState, LedgerFolder, initialFold } from './fold.js';
import { loadCachedFold, registryFingerprint, storeCachedFold } from './cache.js';

/** Records past the snapshot that make the warm path rewrite it. */
export const REWRITE_AFTER = 1000;

export interface LoadFoldOptions {
  /** Snapshot cache folder; none: always fold from the start. */
  cacheDir?: string;
  /** Fold only evidence at or before this instant (never cached). */
  until?: string;
}

export interface LoadedFold {
  state: FoldState;
  /** Ledger problems: the fold covers the records before the first bad line. */
  diagnostics: Diagnostic[];
  fromCache: boolean;
}

/**
 * The fold of a registry's ledger: from the snapshot cache plus the records appended since,
 * or from the start. The cache is rewritten when new records were folded.
 */
export function loadFold(registry: Registry, files: LedgerFiles, options: LoadFoldOptions = {}): LoadedFold {
  const { cacheDir, until } = options;
  const fingerprint = cacheDir !== undefined && until === undefined ? registryFingerprint(registry) : undefined;
  if (cacheDir !== undefined && fingerprint !== undefined) {
    const cached = loadCachedFold(cacheDir, files, registry, fingerprint);
    if (cached) {
      const folder = new LedgerFolder(registry, cached);
      const scan = scanLedgerFile(files, { from: cached.position }, (record) => folder.push(record));
      folder.finish();
      cached.position = scan.end;
      // Rewriting the snapshot costs more than re-folding a short tail: rewrite once the tail is long.
      if (scan.count >= REWRITE_AFTER) storeCachedFold(cacheDir, files, registry, cached, fingerprint);
      return { state: cached, diagnostics: scan.diagnostics, fromCache: true };
    }
  }
  // The records stream from the reader into the fold: none is kept.
  const folder = new LedgerFolder(registry, initialFold(registry), until !== undefined ? { until } : {});
  const scan = scanLedgerFile(files, {}, (record) => folder.push(record));
  const state = folder.finish();
  if (until === undefined) state.position = scan.end;
  if (cacheDir !== undefined && fingerprint !== undefined && scan.diagnostics.length === 0) storeCachedFold(cacheDir, files, registry, state, fingerprint);
  return { state, diagnostics: scan.diagnostics, fromCache: false };
}
