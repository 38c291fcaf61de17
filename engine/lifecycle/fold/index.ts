export { type FoldState, type ContractFold, type StateChange, type Pin, type Refusal, type FoldOptions, initialFold, LedgerFolder, foldRecords, foldLedger, profileFacts } from './fold.js';
export { type AdmissionOptions, CLOCK_SKEW_MS, admitRecord, ledgerAdmission } from './admit.js';
export { type World, type TrackedContract, LIFECYCLES, lifecycleTables, machinesDefinitionHash, worldOf } from './world.js';
