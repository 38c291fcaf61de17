export { CLIENT_PY } from './python.js';
