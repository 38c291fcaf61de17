export { DramArena } from './dram/index.js';
export { SsdTier, SsdIndex, type IndexEntry, type Recovery, type SsdOptions } from './ssd/index.js';
export { SlotPool } from './slots/index.js';
