/**
 * The storage both IdTable and NameTable are made of: open addressing with linear probing and
 * backward-shift deletion (no tombstones), at most half full. It doubles when an insert would
 * pass that and never shrinks, so it is bounded by the most entries it ever held at once (the
 * caller bounds that); its arrays are made once per size, and a deleted entry's slot is emptied in
 * place. See IdTable for why the lookup path keeps its tables in these and not in Maps.
 *
 * A subclass says how keys are stored, hashed and checked; the slots' home is the key's 32-bit
 * hash by Fibonacci hashing (its top bits).
 */

/** Most slots a table may have (2^30: a billion entries are far past any bound of the Manager's). */
const MAX_BITS = 30;
/** 2^32 / golden ratio. */
const GOLDEN = 0x9e3779b1;

export abstract class OpenTable<K, V> {
  private bits: number;
  private mask: number;
  private count = 0;
  private vals: (V | undefined)[];

  /** `capacity`: entries it holds before it first grows (rounded up to a power of two). */
  constructor(capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
    this.bits = Math.max(3, Math.ceil(Math.log2(capacity * 2)));
    if (this.bits > MAX_BITS) throw new RangeError(`capacity must be at most ${2 ** (MAX_BITS - 1)}, got ${capacity}`);
    this.mask = (1 << this.bits) - 1;
    this.vals = new Array<V | undefined>(this.mask + 1).fill(undefined);
    this.makeKeys(this.mask + 1);
  }

  /** Makes the key storage for `slots` empty slots (and forgets the old one). */
  protected abstract makeKeys(slots: number): void;
  /** The key in slot `i`, or undefined when it is empty. */
  protected abstract keyAt(i: number): K | undefined;
  protected abstract putKey(i: number, key: K | undefined): void;
  /** The key's hash, 32 bits. */
  protected abstract hash(key: K): number;
  /** Whether `key` is one this table can hold (a lookup of any other finds nothing). */
  protected abstract accepts(key: K): boolean;
  /** The refusal of a key `accepts` refuses. */
  protected abstract refuse(key: K): Error;

  get size(): number {
    return this.count;
  }

  /** Slots allocated (twice the entries it holds before it grows). */
  get slots(): number {
    return this.mask + 1;
  }

  get(key: K): V | undefined {
    const i = this.find(key);
    return i < 0 ? undefined : this.vals[i];
  }

  has(key: K): boolean {
    return this.find(key) >= 0;
  }

  set(key: K, value: V): this {
    if (!this.accepts(key)) throw this.refuse(key);
    let i = this.home(key);
    for (;;) {
      const k = this.keyAt(i);
      if (k === key) {
        this.vals[i] = value;
        return this;
      }
      if (k === undefined) break;
      i = (i + 1) & this.mask;
    }
    if ((this.count + 1) * 2 > this.mask + 1) {
      this.grow();
      return this.set(key, value);
    }
    this.putKey(i, key);
    this.vals[i] = value;
    this.count++;
    return this;
  }

  delete(key: K): boolean {
    let i = this.find(key);
    if (i < 0) return false;
    const vals = this.vals;
    const mask = this.mask;
    // Backward shift: each entry after the hole that would be found from its home through the
    // hole moves into it (unless its home lies cyclically within (hole, entry]), so no probe
    // ever stops early at an emptied slot.
    for (let j = (i + 1) & mask, k = this.keyAt(j); k !== undefined; j = (j + 1) & mask, k = this.keyAt(j)) {
      if (((j - this.home(k)) & mask) >= ((j - i) & mask)) {
        this.putKey(i, k);
        vals[i] = vals[j];
        i = j;
      }
    }
    this.putKey(i, undefined);
    vals[i] = undefined;
    this.count--;
    return true;
  }

  /** The keys, in no particular order (a new array: the table may change while it is used). */
  keys(): K[] {
    const out: K[] = [];
    for (let i = 0; i <= this.mask; i++) {
      const k = this.keyAt(i);
      if (k !== undefined) out.push(k);
    }
    return out;
  }

  /** The values, in no particular order (a new array). */
  values(): V[] {
    const out: V[] = [];
    for (let i = 0; i <= this.mask; i++) if (this.keyAt(i) !== undefined) out.push(this.vals[i]!);
    return out;
  }

  private home(key: K): number {
    return Math.imul(this.hash(key), GOLDEN) >>> (32 - this.bits);
  }

  /** The slot holding `key`, or -1. */
  private find(key: K): number {
    if (!this.accepts(key)) return -1;
    for (let i = this.home(key); ; i = (i + 1) & this.mask) {
      const k = this.keyAt(i);
      if (k === key) return i;
      if (k === undefined) return -1;
    }
  }

  private grow(): void {
    if (this.bits === MAX_BITS) throw new RangeError(`a table holds at most ${2 ** (MAX_BITS - 1)} entries`);
    const old = this.mask + 1;
    const keys: K[] = [];
    const vals: V[] = [];
    for (let i = 0; i < old; i++) {
      const k = this.keyAt(i);
      if (k !== undefined) {
        keys.push(k);
        vals.push(this.vals[i]!);
      }
    }
    this.bits++;
    this.mask = (1 << this.bits) - 1;
    this.vals = new Array<V | undefined>(this.mask + 1).fill(undefined);
    this.makeKeys(this.mask + 1);
    this.count = 0;
    for (let i = 0; i < keys.length; i++) this.set(keys[i]!, vals[i]!);
  }
}
