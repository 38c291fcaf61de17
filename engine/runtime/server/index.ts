export { ManagerStartError, startManager, type ManagerOptions, type ManagerStatus, type RunningManager } from './manager.js';
export { SOCKET_PATH_LIMIT, claimSocket, defaultSocketPath, prepareSocketFolder, socketAnswers } from './socket-path.js';
