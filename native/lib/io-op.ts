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

