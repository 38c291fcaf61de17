/**
 * A bounded single-producer, single-consumer ring of fixed-size records in a SharedArrayBuffer:
 * the channel the Manager's main thread and a worker that runs its ticket actors would exchange
 * events and reports on (spec/bench/proto/actor-worker measured why: the actors' garbage leaves
 * the main isolate). Nothing is allocated per record: a record is RECORD_INTS 32-bit integers,
 * written in place and read back in place.
 *
 * Bounded: `push` refuses (returns false) when `capacity` records wait unread, and never
 * overwrites one. The head and tail are 32-bit counters that wrap: with a power-of-two capacity,
 * `count & (capacity - 1)` is the slot and `(head - tail) | 0` the records waiting, across the
 * wrap (a ring that carried 2^32 records works as on its first).
 *
 * One thread pushes and one drains. The producer publishes a record by storing the head after the
 * record's integers (Atomics.store: sequentially consistent), and the consumer reads the head
 * before the records, so a record it sees is whole. A consumer that is about to wait says so (a
 * flag), and `wake` costs a futex wake only then, and only once per wait: it takes the flag down.
 * A consumer waits in one of three ways: `sleep` blocks (a worker with nothing else to run),
 * `sleepAsync` awaits (a worker whose timers must keep running), and `listen` only raises the flag,
 * for a thread that must never block (the main one): its producer sends it a message when `wake`
 * says it took the flag.
 */

/** Atomics.waitAsync (in node 20, not in lib ES2023). */
const waitAsync = (Atomics as unknown as { waitAsync(a: Int32Array, index: number, value: number, timeoutMs?: number): { async: false; value: string } | { async: true; value: Promise<string> } }).waitAsync;

/** 32-bit integers in one record. */
export const RECORD_INTS = 4;
/** Int32 control words ahead of the records: head, tail, sleeping. */
const HEAD = 0;
const TAIL = 1;
const SLEEPING = 2;
/** The flag's value while the consumer naps (`napAsync`); 1 while it sleeps or listens. */
const NAPPING = 2;
const CONTROL_INTS = 4;

export class EventRing {
  private readonly control: Int32Array;
  private readonly records: Int32Array;
  readonly capacity: number;
  private readonly mask: number;

  /** The shared memory for a ring of `capacity` records (a power of two, 2 to 2^20). */
  static memory(capacity: number): SharedArrayBuffer {
    if (!Number.isInteger(capacity) || capacity < 2 || capacity > 1 << 20 || (capacity & (capacity - 1)) !== 0) throw new RangeError(`capacity must be a power of two from 2 to ${1 << 20}, got ${capacity}`);
    return new SharedArrayBuffer((CONTROL_INTS + capacity * RECORD_INTS) * 4);
  }

  /** A view of a ring's memory (each side makes its own from the same SharedArrayBuffer). */
  constructor(memory: SharedArrayBuffer) {
    const ints = memory.byteLength / 4 - CONTROL_INTS;
    const capacity = ints / RECORD_INTS;
    if (!Number.isInteger(capacity) || capacity < 2 || (capacity & (capacity - 1)) !== 0) throw new RangeError(`not an event ring's memory: ${memory.byteLength} bytes`);
    this.control = new Int32Array(memory, 0, CONTROL_INTS);
    this.records = new Int32Array(memory, CONTROL_INTS * 4, capacity * RECORD_INTS);
    this.capacity = capacity;
    this.mask = capacity - 1;
  }

  /** Records written and not yet drained. */
  get waiting(): number {
    return (Atomics.load(this.control, HEAD) - Atomics.load(this.control, TAIL)) | 0;
  }

  /** Appends one record; false when the ring is full (nothing is written then). */
  push(a: number, b: number, c: number, d: number): boolean {
    const head = Atomics.load(this.control, HEAD);
    if (((head - Atomics.load(this.control, TAIL)) | 0) >= this.capacity) return false;
    const at = (head & this.mask) * RECORD_INTS;
    const r = this.records;
    r[at] = a;
    r[at + 1] = b;
    r[at + 2] = c;
    r[at + 3] = d;
    Atomics.store(this.control, HEAD, (head + 1) | 0);
    return true;
  }

  /**
   * Hands each waiting record to `each`, oldest first, at most `limit` of them; returns how many
   * it handed. Each record's slot is freed before `each` sees it (an `each` that throws has still
   * consumed its record; the rest wait). Records pushed while it runs wait for the next drain.
   */
  drain(each: (a: number, b: number, c: number, d: number) => void, limit = this.capacity): number {
    const head = Atomics.load(this.control, HEAD);
    let tail = Atomics.load(this.control, TAIL);
    const r = this.records;
    let n = 0;
    while (tail !== head && n < limit) {
      const at = (tail & this.mask) * RECORD_INTS;
      const a = r[at]!;
      const b = r[at + 1]!;
      const c = r[at + 2]!;
      const d = r[at + 3]!;
      tail = (tail + 1) | 0;
      Atomics.store(this.control, TAIL, tail);
      n++;
      each(a, b, c, d);
    }
    return n;
  }

  /**
   * The consumer's wait: marks itself sleeping, and sleeps (Atomics.wait, so only on a thread
   * that may block: a worker) until a record is pushed and woken, or `timeoutMs` passes. Returns
   * at once when records wait.
   */
  sleep(timeoutMs: number): void {
    // The flag goes up before the head is read, and a producer stores the head before it reads
    // the flag: either this sees the new head, or the producer sees the flag and notifies (and a
    // head that moves between this read and the wait makes Atomics.wait return at once).
    Atomics.store(this.control, SLEEPING, 1);
    const head = Atomics.load(this.control, HEAD);
    if (head === Atomics.load(this.control, TAIL)) Atomics.wait(this.control, HEAD, head, timeoutMs);
    Atomics.store(this.control, SLEEPING, 0);
  }

  /**
   * A short wait that asks to be woken only for what is urgent: the flag says NAPPING, so `wake`
   * (urgent) takes it down and notifies, while `wakeSleeper` (not urgent) leaves it; the nap then
   * ends by its timeout. For a consumer that expects records soon: a producer's steady stream then
   * costs it no futex wake per record (spec/bench/results: the notify was main's largest cost).
   */
  async napAsync(timeoutMs: number): Promise<void> {
    Atomics.store(this.control, SLEEPING, NAPPING);
    const head = Atomics.load(this.control, HEAD);
    if (head === Atomics.load(this.control, TAIL)) {
      const waited = waitAsync(this.control, HEAD, head, timeoutMs);
      if (waited.async) await waited.value;
    }
    Atomics.store(this.control, SLEEPING, 0);
  }

  /** `sleep` without blocking: awaits a push (Atomics.waitAsync), or `timeoutMs`; at once when records wait. */
  async sleepAsync(timeoutMs?: number): Promise<void> {
    Atomics.store(this.control, SLEEPING, 1);
    const head = Atomics.load(this.control, HEAD);
    if (head === Atomics.load(this.control, TAIL)) {
      const waited = waitAsync(this.control, HEAD, head, timeoutMs);
      if (waited.async) await waited.value;
    }
    Atomics.store(this.control, SLEEPING, 0);
  }

  /**
   * The wait of a consumer that must not block: raises the flag and returns true when nothing
   * waits (the producer's next `wake` returns true: it should then tell this consumer, e.g. by a
   * message, to drain), or lowers it again and returns false when records wait (drain them first).
   */
  listen(): boolean {
    Atomics.store(this.control, SLEEPING, 1);
    if (Atomics.load(this.control, HEAD) === Atomics.load(this.control, TAIL)) return true;
    Atomics.store(this.control, SLEEPING, 0);
    return false;
  }

  /** Whether the consumer sleeps (or listens) and no producer has taken its flag down yet: not while it naps. */
  get sleeping(): boolean {
    return Atomics.load(this.control, SLEEPING) === 1;
  }

  /**
   * The producer's nudge after pushing. When the consumer waits, takes its flag down, wakes it if
   * it sleeps (a futex wake) and returns true (once per wait: a listener is told once); else false.
   */
  wake(): boolean {
    if (Atomics.compareExchange(this.control, SLEEPING, 1, 0) !== 1 && Atomics.compareExchange(this.control, SLEEPING, NAPPING, 0) !== NAPPING) return false;
    Atomics.notify(this.control, HEAD, 1);
    return true;
  }
}
