export { rejectionTable, gateSteps, type GateStep, type PinData, type RejectionData, type RejectionTable } from './plan.js';
export { emitTypescriptRejections } from './typescript.js';
export { REJECTIONS_PY } from './python.js';
