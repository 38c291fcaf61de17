export { formatSize, parseSize } from './parse-size.js';
