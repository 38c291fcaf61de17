export { rejectionTable, type PinData, type RejectionData, type RejectionTable } from './plan.js';
export { gateSteps, type GateStep } from './gates.js';
export { ENV_PARSINGS, type EnvParsing, type ProfileRules } from './profile.js';
export { emitTypescriptRejections } from './typescript.js';
export { REJECTIONS_PY } from './python.js';
