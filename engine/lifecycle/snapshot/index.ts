export { CACHE_DIR, cacheDirFor, cacheDirNotice, hasSnapshot, loadCachedFold, loadCachedSnapshot, lifecycleCodeHash, storeCachedFold, registryFingerprint } from './store.js';
export { type LoadFoldOptions, type LoadedFold, type LoadBoardOptions, loadFold, loadBoard } from './load.js';
export { snapshotOnCommit } from './commit.js';
