/**
 * A table from strings to values that allocates only when it grows, never as it churns: IdTable's
 * reason (see there: a churned Map's rebuilt tables keep what they held alive through scavenges
 * once one of them is promoted) for tables keyed by a name, such as the rank agreement's groups by
 * engine request id (each group holds its ranks' tickets, added and deleted at every request of a
 * tensor-parallel engine).
 *
 * Open addressing with linear probing and backward-shift deletion, at most half full; it doubles
 * when an insert would pass that and never shrinks. Keys are hashed here (FNV-1a over their UTF-16
 * code units): a string's own hash is V8's, and not reachable from JavaScript.
 */

/** Most slots a table may have (as IdTable). */
const MAX_BITS = 30;

/** FNV-1a, 32 bits, over the string's UTF-16 code units. */
function hashName(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

export class NameTable<V> {
  private keys: (string | undefined)[];
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
    this.keys = new Array<string | undefined>(this.mask + 1).fill(undefined);
    this.vals = new Array<V | undefined>(this.mask + 1).fill(undefined);
  }

  get size(): number {
    return this.count;
  }

  /** Slots allocated (twice the entries it holds before it grows). */
  get slots(): number {
    return this.mask + 1;
  }

  get(name: string): V | undefined {
    const i = this.find(name);
    return i < 0 ? undefined : this.vals[i];
  }

  has(name: string): boolean {
    return this.find(name) >= 0;
  }

  set(name: string, value: V): this {
    if (typeof name !== 'string') throw new TypeError(`a name must be a string, got ${typeof name}`);
    let i = hashName(name) & this.mask;
    for (;;) {
      const k = this.keys[i];
      if (k === name) {
        this.vals[i] = value;
        return this;
      }
      if (k === undefined) break;
      i = (i + 1) & this.mask;
    }
    if ((this.count + 1) * 2 > this.mask + 1) {
      this.grow();
      return this.set(name, value);
    }
    this.keys[i] = name;
    this.vals[i] = value;
    this.count++;
    return this;
  }

  delete(name: string): boolean {
    let i = this.find(name);
    if (i < 0) return false;
    const keys = this.keys;
    const vals = this.vals;
    const mask = this.mask;
    // Backward shift (as IdTable): an entry after the hole moves into it unless its home lies
    // cyclically within (hole, entry].
    for (let j = (i + 1) & mask; keys[j] !== undefined; j = (j + 1) & mask) {
      const home = hashName(keys[j]!) & mask;
      if (((j - home) & mask) >= ((j - i) & mask)) {
        keys[i] = keys[j];
        vals[i] = vals[j];
        i = j;
      }
    }
    keys[i] = undefined;
    vals[i] = undefined;
    this.count--;
    return true;
  }

  /** The names, in no particular order (a new array). */
  names(): string[] {
    const out: string[] = [];
    for (let i = 0; i <= this.mask; i++) if (this.keys[i] !== undefined) out.push(this.keys[i]!);
    return out;
  }

  /** The values, in no particular order (a new array). */
  values(): V[] {
    const out: V[] = [];
    for (let i = 0; i <= this.mask; i++) if (this.keys[i] !== undefined) out.push(this.vals[i]!);
    return out;
  }

  /** The slot holding `name`, or -1. */
  private find(name: string): number {
    if (typeof name !== 'string') return -1;
    for (let i = hashName(name) & this.mask; ; i = (i + 1) & this.mask) {
      const k = this.keys[i];
      if (k === name) return i;
      if (k === undefined) return -1;
    }
  }

  private grow(): void {
    const keys = this.keys;
    const vals = this.vals;
    if (this.bits === MAX_BITS) throw new RangeError(`a NameTable holds at most ${2 ** (MAX_BITS - 1)} entries`);
    this.bits++;
    this.mask = (1 << this.bits) - 1;
    this.keys = new Array<string | undefined>(this.mask + 1).fill(undefined);
    this.vals = new Array<V | undefined>(this.mask + 1).fill(undefined);
    this.count = 0;
    for (let i = 0; i < keys.length; i++) if (keys[i] !== undefined) this.set(keys[i]!, vals[i]!);
  }
}
