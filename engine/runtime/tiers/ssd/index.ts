export { SsdTier, type SsdOptions } from './ssd-tier.js';
export { SsdIndex, type IndexEntry, type Recovery } from './index/index.js';
