export { GENESIS, canonicalJson, sealLine, unsealLine, sha256 } from './canonical.js';
export { type LedgerPosition, type LedgerRead, type ParseOptions, LEDGER_START, parseLedger } from './read.js';
export { type LedgerFiles, type LedgerHead, type AppendResult, type StampableDraft, ledgerFiles, readLedgerFile, scanLedgerFile, readHead, appendEvidence, repairTornLine } from './file.js';
export { type LedgerScan, type LedgerSource, type ScanOptions, scanLedger, bufferSource } from './scan.js';
export { withLock } from './lock.js';
export { validateRecord } from './validate.js';
export { EVIDENCE_RULES, EVIDENCE_TYPES, isEvidenceType } from './rules.js';
