export { ManagerClient, type Reply } from './manager-client.js';
export { askManager } from './ask.js';
