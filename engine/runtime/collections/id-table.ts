/**
 * A table from positive integer ids to values whose storage is allocated only when it grows,
 * never when it churns: for the tables a lookup adds to and deletes from (the service's open
 * tickets, a session's tickets and their grants).
 *
 * Why not a Map. V8 rebuilds a Map's hash table into a new one each time deletions and inserts
 * have filled it (every few dozen lookups at a steady few tickets open), and the table it leaves
 * keeps a pointer to its successor, for iterators that were walking it, and the entries it had.
 * Once one such table has been promoted to the old generation (one that lived across two
 * young-generation collections), it is a dead old object that points to the young table after
 * it, so the scavenger keeps that table, and every ticket it holds, alive and promotes them; each
 * table after it then does the same for its successor. Every ticket, with its probe, its reply and
 * its grant, was promoted: on the dev VM at 10,000 lookups/s, 260-330 KB a scavenge, every 77 ms,
 * with pauses of 1.0-1.8 ms against 0.3-0.4 ms while the same Manager answered the bare echo
 * (spec/bench/results/runtime-map-nepotism-dev-vm.txt), and the old generation filled towards a
 * mark-compact every 4 s. Here the storage is two arrays made once per size: a deleted entry's
 * slot is emptied in place and nothing points from an old array to a newer one.
 *
 * Open addressing with linear probing and backward-shift deletion (no tombstones), at most half
 * full; it doubles when an insert would pass that and never shrinks, so it is bounded by the
 * most entries it ever held at once (the caller bounds that).
 */

/** The slot's key while it holds nothing (ids are at least 1). */
const EMPTY = 0;
/** 2^32 / golden ratio: Fibonacci hashing of the id's low 32 bits. */
const GOLDEN = 0x9e3779b1;
/** Most slots a table may have (2^30: a billion entries are far past any bound of the Manager's). */
const MAX_BITS = 30;

export class IdTable<V> {
  private keys: Float64Array;
  private vals: (V | undefined)[];
  private bits: number;
  private mask: number;
  private count = 0;

  /** `capacity`: entries it holds before it first grows (rounded up to a power of two). */
  constructor(capacity = 8) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
    this.bits = Math.max(3, Math.ceil(Math.log2(capacity * 2)));
    if (this.bits > MAX_BITS) throw new RangeError(`capacity must be at most ${2 ** (MAX_BITS - 1)}, got ${capacity}`);
    this.mask = (1 << this.bits) - 1;
    this.keys = new Float64Array(this.mask + 1);
    this.vals = new Array<V | undefined>(this.mask + 1).fill(undefined);
  }

  get size(): number {
    return this.count;
  }

  /** Slots allocated (twice the entries it holds before it grows). */
  get slots(): number {
    return this.mask + 1;
  }

  get(id: number): V | undefined {
    const i = this.find(id);
    return i < 0 ? undefined : this.vals[i];
  }

  has(id: number): boolean {
    return this.find(id) >= 0;
  }

  set(id: number, value: V): this {
    if (!(Number.isSafeInteger(id) && id >= 1)) throw new RangeError(`an id must be a positive safe integer, got ${id}`);
    let i = this.home(id);
    for (;;) {
      const k = this.keys[i]!;
      if (k === id) {
        this.vals[i] = value;
        return this;
      }
      if (k === EMPTY) break;
      i = (i + 1) & this.mask;
    }
    if ((this.count + 1) * 2 > this.mask + 1) {
      this.grow();
      return this.set(id, value);
    }
    this.keys[i] = id;
    this.vals[i] = value;
    this.count++;
    return this;
  }

  delete(id: number): boolean {
    let i = this.find(id);
    if (i < 0) return false;
    const keys = this.keys;
    const vals = this.vals;
    const mask = this.mask;
    // Backward shift: each entry after the hole that would be found from its home through the
    // hole moves into it, so no probe ever stops early at an emptied slot.
    for (let j = (i + 1) & mask; keys[j] !== EMPTY; j = (j + 1) & mask) {
      const home = this.home(keys[j]!);
      // j's entry may move to i when its home is not cyclically within (i, j].
      if (((j - home) & mask) >= ((j - i) & mask)) {
        keys[i] = keys[j]!;
        vals[i] = vals[j];
        i = j;
      }
    }
    keys[i] = EMPTY;
    vals[i] = undefined;
    this.count--;
    return true;
  }

  /** The values, in no particular order (a new array: the table may change while it is used). */
  values(): V[] {
    const out: V[] = [];
    for (let i = 0; i <= this.mask; i++) if (this.keys[i] !== EMPTY) out.push(this.vals[i]!);
    return out;
  }

  /** The ids, in no particular order (a new array). */
  ids(): number[] {
    const out: number[] = [];
    for (let i = 0; i <= this.mask; i++) if (this.keys[i] !== EMPTY) out.push(this.keys[i]!);
    return out;
  }

  private home(id: number): number {
    return Math.imul(id >>> 0, GOLDEN) >>> (32 - this.bits);
  }

  /** The slot holding `id`, or -1. */
  private find(id: number): number {
    if (id === EMPTY) return -1;
    for (let i = this.home(id); ; i = (i + 1) & this.mask) {
      const k = this.keys[i]!;
      if (k === id) return i;
      if (k === EMPTY) return -1;
    }
  }

  private grow(): void {
    const keys = this.keys;
    const vals = this.vals;
    if (this.bits === MAX_BITS) throw new RangeError(`an IdTable holds at most ${2 ** (MAX_BITS - 1)} entries`);
    this.bits++;
    this.mask = (1 << this.bits) - 1;
    this.keys = new Float64Array(this.mask + 1);
    this.vals = new Array<V | undefined>(this.mask + 1).fill(undefined);
    this.count = 0;
    for (let i = 0; i < keys.length; i++) if (keys[i] !== EMPTY) this.set(keys[i]!, vals[i]!);
  }
}
