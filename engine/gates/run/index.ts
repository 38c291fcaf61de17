export { runGates, type CellOutcome, type GateRunOptions, type GateRunResult } from './runner.js';
export { planGates, cellParameters, productModulePath, type PlannedCell, type PlannedGate } from './plan.js';
export { recordResults, type RecordOptions, type RecordOutcome } from './record.js';
export { inputDigests, changedInputs, contractsDigest, type InputDigests } from './inputs.js';
export { createProgress, progressEnabled, type Progress, type ProgressStream } from './progress.js';
export { renderJson, renderText } from './report.js';
