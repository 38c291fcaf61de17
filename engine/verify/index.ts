export { verifyEngine, type VerifyOptions } from './verify.js';
export type { VerifyReport, TargetCheck, AssertionCheck, TargetOutcome, AssertionOutcome, CheckoutVersion, SourceLocation, OutcomeCounts } from './report.js';
export type { SignatureDiff } from './signature.js';
export type { UnresolvableReason, MissingReason } from './resolve.js';
export { PINNED_GRAMMAR, checkGrammar, loadPythonParser, GrammarMismatchError, type GrammarIdentity } from './grammar.js';
export { scanFiles, workerCount, type ScanTarget } from './pool.js';
export { DEFAULT_MAX_FILE_BYTES } from './scan-file.js';
export type { FileScan, Definition } from './table.js';
