/**
 * Fixed slots with LRU order, in typed arrays sized once: a free stack and a doubly linked
 * recency list. Taking a slot pops a free one or evicts the least recently used slot the
 * owner allows (`evictable`), so a pool never grows and never allocates per block.
 */
const NONE = -1;

export class SlotPool {
  private readonly prev: Int32Array;
  private readonly next: Int32Array;
  private readonly free: Uint32Array;
  private freeCount: number;
  /** Least recently used end of the list (evicted first) and most recent end. */
  private head = NONE;
  private tail = NONE;
  private used: Uint8Array;
  /** Slots below this may be used; the rest wait for their backing store (see `grant`). */
  private available: number;

  constructor(readonly capacity: number, available = capacity) {
    if (!Number.isSafeInteger(capacity) || capacity < 0 || capacity > 0x7fff_ffff) throw new RangeError(`slot count must be an integer in 0..2^31-1, got ${capacity}`);
    this.prev = new Int32Array(capacity).fill(NONE);
    this.next = new Int32Array(capacity).fill(NONE);
    this.used = new Uint8Array(capacity);
    this.free = new Uint32Array(capacity);
    this.available = Math.max(0, Math.min(capacity, available));
    for (let i = 0; i < this.available; i++) this.free[i] = this.available - 1 - i;
    this.freeCount = this.available;
  }

  /** Slots taken (a slot not yet granted is neither taken nor free). */
  get inUse(): number {
    return this.available - this.freeCount;
  }

  /** Usable slots not taken. */
  get freeSlots(): number {
    return this.freeCount;
  }

  /** Slots that may be used now. */
  get usable(): number {
    return this.available;
  }

  /** Makes slots [usable, upTo) usable (their backing store now exists); lower slots come first. */
  grant(upTo: number): void {
    const to = Math.min(this.capacity, upTo);
    if (to <= this.available) return;
    // The free stack pops from its end: keep lower slots on top so they are taken first.
    const fresh = to - this.available;
    this.free.copyWithin(fresh, 0, this.freeCount);
    for (let i = 0; i < fresh; i++) this.free[i] = to - 1 - i;
    this.freeCount += fresh;
    this.available = to;
  }

  /**
   * A slot for a new block: a free one, else the least recently used slot for which
   * `evictable(slot)` is true (the owner then drops what it held via `onEvict`); -1 when every
   * slot is pinned.
   */
  take(evictable: (slot: number) => boolean, onEvict: (slot: number) => void): number {
    if (this.freeCount > 0) {
      const slot = this.free[--this.freeCount]!;
      this.used[slot] = 1;
      this.append(slot);
      return slot;
    }
    for (let s = this.head; s !== NONE; s = this.next[s]!) {
      if (!evictable(s)) continue;
      onEvict(s);
      this.touch(s);
      return s;
    }
    return NONE;
  }

  /**
   * Marks the given slots used, in the given order (oldest first), on a fresh pool: how an
   * index rebuilds the pool at recovery. One pass; false when a slot is out of range or repeated.
   */
  adopt(slots: readonly number[]): boolean {
    if (this.freeCount !== this.available) throw new Error('adopt needs a fresh pool');
    for (const slot of slots) {
      if (!Number.isInteger(slot) || slot < 0 || slot >= this.available || this.used[slot]) return false;
      this.used[slot] = 1;
      this.append(slot);
    }
    this.freeCount = 0;
    for (let i = this.available - 1; i >= 0; i--) if (!this.used[i]) this.free[this.freeCount++] = i;
    return true;
  }

  /** Marks a slot most recently used. */
  touch(slot: number): void {
    if (!this.used[slot] || this.tail === slot) return;
    this.unlink(slot);
    this.append(slot);
  }

  release(slot: number): void {
    if (!this.used[slot]) return;
    this.unlink(slot);
    this.used[slot] = 0;
    this.free[this.freeCount++] = slot;
  }

  private append(slot: number): void {
    this.prev[slot] = this.tail;
    this.next[slot] = NONE;
    if (this.tail !== NONE) this.next[this.tail] = slot;
    else this.head = slot;
    this.tail = slot;
  }

  private unlink(slot: number): void {
    const p = this.prev[slot]!;
    const n = this.next[slot]!;
    if (p !== NONE) this.next[p] = n;
    else this.head = n;
    if (n !== NONE) this.prev[n] = p;
    else this.tail = p;
    this.prev[slot] = NONE;
    this.next[slot] = NONE;
  }
}
