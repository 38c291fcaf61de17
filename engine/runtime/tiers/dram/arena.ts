/**
 * The DRAM tier: one aligned arena of fixed-size slots, allocated once at start (O_DIRECT
 * reads and writes go straight to and from a slot).
 */
import { allocAligned } from '../../../../native/index.js';
import { SlotPool } from '../slots/index.js';

export class DramArena {
  readonly memory: Buffer;
  readonly pool: SlotPool;

  constructor(readonly slotBytes: number, readonly slots: number) {
    this.memory = allocAligned(slotBytes * slots);
    this.pool = new SlotPool(slots);
  }

  /** The bytes of one slot (a view, no copy). */
  slot(index: number): Buffer {
    return this.memory.subarray(index * this.slotBytes, (index + 1) * this.slotBytes);
  }

  get bytes(): number {
    return this.memory.byteLength;
  }
}
