/**
 * The DRAM tier: one aligned arena of fixed-size slots, allocated once at start (O_DIRECT
 * reads and writes go straight to and from a slot).
 */
import { adjustExternalMemory, allocAligned } from '../../../../native/index.js';
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

  /**
   * Takes the arena out of what V8 counts as memory held outside its heap, for an arena held as
   * long as its process serves (the Manager's); returns the function that puts it back, to be called
   * before the arena is let go. No collection can free the arena, and V8 weighs that count: above
   * its soft limit of 64 MB (the default DRAM tier is 1 GiB) it collects for external-memory
   * pressure. In the service alone on the dev VM, one 64 MiB buffer held the main isolate's
   * scavenges at ~0.8 MB promoted and ~2.5 ms each, against ~5 KB and ~0.5 ms uncounted
   * (spec/bench/results/runtime-gc-dev-vm.txt; the Manager's own lookup phases did not change with it).
   */
  untrackFromV8(): () => void {
    const bytes = this.memory.byteLength;
    adjustExternalMemory(-bytes);
    let tracked = false;
    return () => {
      if (tracked) return;
      tracked = true;
      adjustExternalMemory(bytes);
    };
  }
}
