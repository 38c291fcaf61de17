export { SOCKET_PATH_LIMIT, defaultSocketPath, fdSocketPath, managerEndpoint, type ManagerEndpoint, type ProductNames } from './endpoint.js';
