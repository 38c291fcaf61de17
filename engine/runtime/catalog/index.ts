export { BlockCache, namespaceId, type Block, type PersistOutcome, type Probe, type SaveOutcome, type Tier, type WriteBack, type Fill } from './block-cache.js';
