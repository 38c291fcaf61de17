export { SSD_RING_DEPTH, SsdTier, blockChecksum, type SsdOptions } from './ssd-tier.js';
export { SsdIndex, type ChecksumKind, type IndexEntry, type Recovery } from './index/index.js';
