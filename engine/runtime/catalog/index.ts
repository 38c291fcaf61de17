export { BlockCache, namespaceId, type Block, type PersistOutcome, type Probe, type SaveOutcome, type Tier } from './block-cache.js';
