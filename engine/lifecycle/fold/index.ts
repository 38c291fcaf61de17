export { type FoldState, type ContractFold, type StateChange, type Pin, type Refusal, type FoldOptions, initialFold, LedgerFolder, foldRecords, foldLedger, profileFacts } from './fold.js';
export { type AdmissionOptions, CLOCK_SKEW_MS, admitRecord, ledgerAdmission } from './admit.js';
export { CACHE_DIR, cacheDirFor, cacheDirNotice, loadCachedFold, loadCachedSnapshot, lifecycleCodeHash, storeCachedFold, registryFingerprint } from './cache.js';
export { type LoadFoldOptions, type LoadedFold, type LoadBoardOptions, loadFold, loadBoard } from './load.js';
export { type World, type TrackedContract, LIFECYCLES, lifecycleTables, machinesDefinitionHash, worldOf } from './world.js';
