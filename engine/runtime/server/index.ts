export { ManagerStartError, startManager, type ManagerOptions, type ManagerStatus, type RunningManager } from './manager.js';
export { prepareSocketFolder, socketAnswers } from './socket-path.js';
export { lockPath, lockSocket, type LockOutcome } from './socket-lock.js';
export { MANAGER_V8_FLAGS, applyManagerHeapProfile } from './heap-profile.js';
