export { ManagerClient, type Reply } from './manager-client.js';
export { askManager } from './ask.js';
export { probeManagerSocket, type SocketCheck, type SocketReport } from './probe-socket.js';
