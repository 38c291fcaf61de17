export { rejectionTable, type PinData, type RejectionData, type RejectionTable } from './plan.js';
export { gateSteps, type GateStep } from './gates.js';
export { ENV_PARSINGS, type EnvParsing, type ProfileRules } from './profile.js';
export { emitTypescriptRejections, rejectionModuleJs, rejectionModuleTemplate } from './typescript.js';
export { DATA_CONSTANTS, rejectionData, spliceRejectionData } from './splice.js';
export { REJECTION_MODULE_FILE, rejectionModuleSource } from './module-file.js';
export { REJECTIONS_PY } from './python.js';
