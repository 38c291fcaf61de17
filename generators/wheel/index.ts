export { buildWheel, distInfo, metadata, recordHash, wheelName } from './wheel.js';
export { checkWheel } from './check.js';
export { readZip, writeZip, type ZipMember } from './zip.js';
export { globToRegExp } from './glob.js';
