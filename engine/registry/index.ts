export { loadRegistry, resolveRegistryDir, embeddedRegistryDir, type LoadResult } from './load.js';
export { Registry, type ContractEntry } from './registry.js';
export { type SourceFile, rangeAtPath, rangeOf } from './source.js';
export { parseContractText, MAX_CONTRACT_BYTES } from './read.js';
export { checkSchema, nearest } from './schema.js';
