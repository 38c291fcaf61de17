export { SlotPool } from './slot-pool.js';
