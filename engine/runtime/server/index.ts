export { ManagerStartError, startManager, type ManagerOptions, type ManagerStatus, type RunningManager } from './manager.js';
export { prepareSocketFolder, socketAnswers } from './socket-path.js';
export { lockPath, lockSocket, type LockOutcome } from './socket-lock.js';
export { MANAGER_ENV, MANAGER_NODE_FLAGS, MANAGER_V8_FLAGS, YOUNG_SEMI_SPACE_MIB, applyManagerHeapProfile, youngGeneration } from './heap-profile.js';
