import type { Registry } from '../../registry/index.js';
import type { LedgerFiles } from '../ledger/file.js';
import type { Trust } from '../ledger/trust.js';
import type { FoldState } from '../fold/fold.js';
import { hasSnapshot, storeCachedFold } from './store.js';

/**
 * The `committed` hook of `ledgerAdmission` that writes the admitting fold down as the snapshot,
 * where there is none yet: one a status wrote holds the board's rows too, and resuming from it over
 * the one new record costs less than rebuilding every row. A cache that cannot be written costs the
 * next command its warm start, nothing else (`status` warns).
 */
export function snapshotOnCommit(cacheDir: string | undefined, registry: Registry, files: LedgerFiles): ((state: FoldState, prefixDigest: string, trust: Trust) => void) | undefined {
  if (cacheDir === undefined) return undefined;
  return (state, prefixDigest, trust) => {
    if (hasSnapshot(cacheDir, files)) return;
    storeCachedFold(cacheDir, files, registry, state, prefixDigest, undefined, undefined, trust.fingerprint);
  };
}
