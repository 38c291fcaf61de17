/**
 * One ring operation as JS tracks it (its state travels with it), and the queues that hold
 * operations until the ring has room: reads in one FIFO, writes and fsyncs in one FIFO per file.
 * Fixed-shape records and no closure per operation: the hot path allocates the record, its
 * promise and nothing else.
 */
import type { FileHandle, PendingOperation } from './direct-file.js';
import type { IoOpName } from './errors.js';

export type OpName = Exclude<IoOpName, 'open' | 'close'>;

/** How a cancellation ended: the op finished anyway (`done`) or never moved a byte. */
export type CancelOutcome = 'done' | 'cancelled';

/** Raw op kinds of the native binding. */
export const KIND: Record<OpName, number> = { read: 0, write: 1, fsync: 2, readv: 3, writev: 4 };

export type CancelHook = (op: Op, deadlineMs: number) => Promise<CancelOutcome>;

/** How a callback-style op (IoRing.submitRead) hears its outcome: once, error or bytes. */
export type OpCallback = (error: Error | null, bytes: number) => void;

export class Op implements PendingOperation {
  state: 'queued' | 'submitted' | 'settled' = 'queued';
  cancelRequested = false;
  /** Set when the deadline fired: the cancellation is reported as DeadlineExceededError. */
  deadlineMs = 0;
  timer: ReturnType<typeof setTimeout> | null = null;
  /** How it ended, once settled. */
  outcome: CancelOutcome | null = null;
  /** Set by cancel(): told the outcome when the op settles (lazily, off the hot path). */
  onSettled: ((outcome: CancelOutcome) => void) | null = null;
  isRead: boolean;
  // The links of its file's pending list (see PendingOperation; the file sets them).
  pendingOn: object | null = null;
  prevPending: PendingOperation | null = null;
  nextPending: PendingOperation | null = null;

  constructor(
    public id: number,
    public op: OpName,
    public file: FileHandle,
    public buffer: Uint8Array | null,
    public buffers: Uint8Array[] | null,
    public bufferOffset: number,
    public length: number,
    public offset: number,
    public bufIndex: number,
    /** The promise's settlers, or null for a callback-style op (then `done` is set). */
    readonly resolve: ((bytes: number) => void) | null,
    readonly reject: ((error: Error) => void) | null,
    public done: OpCallback | null,
    private readonly cancelHook: CancelHook,
  ) {
    this.isRead = op === 'read' || op === 'readv';
  }

  /**
   * Makes a settled callback-style read (one nothing refers to any more: out of every queue,
   * map and file) a fresh queued read, so a steady stream of reads allocates no records.
   */
  reuseAsRead(id: number, file: FileHandle, buffer: Uint8Array, bufferOffset: number, length: number, offset: number, bufIndex: number, done: OpCallback): this {
    this.state = 'queued';
    this.cancelRequested = false;
    this.deadlineMs = 0;
    this.outcome = null;
    this.onSettled = null;
    this.id = id;
    this.op = 'read';
    this.isRead = true;
    this.file = file;
    this.buffer = buffer;
    this.bufferOffset = bufferOffset;
    this.length = length;
    this.offset = offset;
    this.bufIndex = bufIndex;
    this.done = done;
    return this;
  }

  /** The file's pending-operation entry: DirectFile.close({ cancel }) calls it. */
  cancel(): Promise<CancelOutcome> {
    return this.cancelHook(this, 0);
  }
}

/** A FIFO with O(1) push/shift that skips ops cancelled while queued. */
export class OpQueue {
  private items: Op[] = [];
  private head = 0;
  push(op: Op): void {
    this.items.push(op);
  }
  peek(): Op | undefined {
    while (this.head < this.items.length && this.items[this.head]!.state !== 'queued') this.head++;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return this.items[this.head];
  }
  shift(): void {
    this.head++;
  }
  get size(): number {
    let n = 0;
    for (let i = this.head; i < this.items.length; i++) if (this.items[i]!.state === 'queued') n++;
    return n;
  }
}

/**
 * Writes and fsyncs, one FIFO per file, taken round robin. An fsync waits only for the writes
 * of its own file that were submitted before it (the barrier is per file, not per ring).
 */
export class WriteQueues {
  private readonly byFile = new Map<FileHandle, OpQueue>();
  private order: FileHandle[] = [];
  private cursor = 0;
  private current: OpQueue | null = null;

  push(op: Op): void {
    let queue = this.byFile.get(op.file);
    if (!queue) {
      queue = new OpQueue();
      this.byFile.set(op.file, queue);
      this.order.push(op.file);
    }
    queue.push(op);
  }

  /** The next op whose file is not held by a barrier (still queued: `shift()` takes it). */
  peek(writesInFlight: Map<FileHandle, number>): Op | undefined {
    for (let tried = 0; tried < this.order.length; ) {
      if (this.cursor >= this.order.length) this.cursor = 0;
      const file = this.order[this.cursor]!;
      const queue = this.byFile.get(file)!;
      const next = queue.peek();
      if (!next) {
        this.byFile.delete(file);
        this.order.splice(this.cursor, 1);
        continue;
      }
      tried++;
      if (next.op === 'fsync' && (writesInFlight.get(file) ?? 0) > 0) {
        this.cursor++;
        continue;  // barrier: that file's earlier writes first
      }
      this.current = queue;
      return next;
    }
    return undefined;
  }

  /** Takes the op the last peek() returned; the next file's turn comes next. */
  shift(): void {
    this.current!.shift();
    this.current = null;
    this.cursor++;
  }

  get waiting(): boolean {
    return this.order.length > 0;
  }

  get size(): number {
    let n = 0;
    for (const queue of this.byFile.values()) n += queue.size;
    return n;
  }
}


/**
 * A ring's ops by id (ids are 1..2^32 - 1): open addressing with linear probing and
 * backward-shift deletion, the native InflightTable's scheme, so adding, finding and removing an
 * op hashes one number into two flat arrays and allocates nothing once the table has grown to
 * the most ops ever held at once (it doubles at half full, never shrinks). A Map under the same
 * churn of ids (one in, one out per read) rehashed into a freshly allocated table every few
 * dozen ops: time per read, and garbage for the GC.
 */
export class OpTable {
  /** The id in each slot; 0 marks an empty slot (no op has id 0). */
  private keys: Uint32Array;
  private slots: (Op | null)[];
  private mask: number;
  /** 32 - log2(capacity): the top bits of the Fibonacci hash pick the home slot. */
  private shift: number;
  private count = 0;

  constructor(capacity = 128) {
    let bits = 4;
    while (1 << bits < capacity) bits++;
    this.keys = new Uint32Array(1 << bits);
    this.slots = new Array<Op | null>(1 << bits).fill(null);
    this.mask = (1 << bits) - 1;
    this.shift = 32 - bits;
  }

  get size(): number {
    return this.count;
  }

  /** The op under `id`, or undefined (for any value that is not an id in the table). */
  get(id: number): Op | undefined {
    const keys = this.keys;
    for (let i = this.home(id); ; i = (i + 1) & this.mask) {
      const k = keys[i]!;
      if (k === 0) return undefined;
      if (k === id) return this.slots[i]!;
    }
  }

  has(id: number): boolean {
    return this.get(id) !== undefined;
  }

  /** Adds or replaces the op under `id` (an integer in 1..2^32 - 1). */
  set(id: number, op: Op): void {
    if ((this.count + 1) * 2 > this.keys.length) this.grow();
    const keys = this.keys;
    let i = this.home(id);
    while (keys[i] !== 0 && keys[i] !== id) i = (i + 1) & this.mask;
    if (keys[i] === 0) this.count++;
    keys[i] = id;
    this.slots[i] = op;
  }

  /** Removes the op under `id`; false when there was none. Later entries of its run shift back. */
  delete(id: number): boolean {
    const keys = this.keys;
    const slots = this.slots;
    const mask = this.mask;
    let hole = this.home(id);
    for (;;) {
      const k = keys[hole]!;
      if (k === 0) return false;
      if (k === id) break;
      hole = (hole + 1) & mask;
    }
    for (let i = (hole + 1) & mask; keys[i] !== 0; i = (i + 1) & mask) {
      const home = this.home(keys[i]!);
      // Entry i may move into the hole unless its home lies cyclically in (hole, i].
      const stays = hole <= i ? home > hole && home <= i : home > hole || home <= i;
      if (stays) continue;
      keys[hole] = keys[i]!;
      slots[hole] = slots[i]!;
      hole = i;
    }
    keys[hole] = 0;
    slots[hole] = null;
    this.count--;
    return true;
  }

  /** The ops now held, in id order (the order they were added until the ids wrap): a copy. */
  values(): Op[] {
    const out: Op[] = [];
    for (const op of this.slots) if (op) out.push(op);
    return out.sort((a, b) => a.id - b.id);
  }

  private home(id: number): number {
    return Math.imul(id, 0x9e3779b1) >>> this.shift;
  }

  private grow(): void {
    const keys = this.keys;
    const slots = this.slots;
    const bits = 32 - this.shift + 1;
    this.keys = new Uint32Array(1 << bits);
    this.slots = new Array<Op | null>(1 << bits).fill(null);
    this.mask = (1 << bits) - 1;
    this.shift = 32 - bits;
    this.count = 0;
    for (let i = 0; i < keys.length; i++) if (keys[i] !== 0) this.set(keys[i]!, slots[i]!);
  }
}
