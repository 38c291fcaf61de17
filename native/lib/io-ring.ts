/**
 * IoRing: batched direct I/O over one native backend (io_uring, or the libuv thread pool where
 * io_uring is refused). The native side only queues, submits, cancels and reports completions;
 * this file owns the policy: argument checks, a depth and bytes-in-flight budget, reads ahead
 * of writes, fsync as a barrier, definite cancellation outcomes, and draining close.
 *
 * @example
 * const ring = openRing({ depth: 64, backend: 'auto' });
 * const file = openFile('/data/seg0', { create: true });
 * const buf = allocAligned(1 << 20);
 * await ring.write(file, buf, 0);
 * await ring.close();
 */
import { binding, type RawIoBackend } from './binding.js';
import { fileHandle, type DirectFile, type FileHandle } from './direct-file.js';
import { CancelledError, DeadlineExceededError, IoError, IoUringUnavailableError, RingClosedError, type IoOpName } from './errors.js';

export type IoBackendName = 'io_uring' | 'threadpool';

export interface RingOptions {
  /** Most ops submitted at once (default 64). */
  depth?: number;
  /** 'auto' (default) takes io_uring where allowed, else the thread pool, and says why. */
  backend?: IoBackendName | 'auto';
  /** Most bytes submitted at once (default 64 MiB); one larger op still runs alone. */
  budgetBytes?: number;
  /**
   * Share of the depth kept for writes while writes wait (default 0.25, at least one slot):
   * reads go first, but a steady stream of reads cannot starve saves.
   */
  writeShare?: number;
}

/** Per-operation options. */
export interface OpOptions {
  /** Milliseconds from now after which the op is cancelled (DeadlineExceededError, ETIMEDOUT). */
  deadlineMs?: number;
}

/** How a cancellation ended: the op finished anyway (`done`) or never moved a byte. */
export type CancelOutcome = 'done' | 'cancelled';

/** A submitted operation: a promise of the bytes moved, with its id, which can be cancelled. */
export type IoRequest = Promise<number> & { readonly id: number; cancel(): Promise<CancelOutcome> };

export interface RingStats {
  inFlight: number;
  inFlightBytes: number;
  writesInFlight: number;
  queued: number;
}

/** Completions a submit may hand back inline per loop turn, in multiples of the depth. */
const INLINE_TURNS = 4;

const KIND: Record<OpName, number> = { read: 0, write: 1, fsync: 2, readv: 3, writev: 4 };
type OpName = Exclude<IoOpName, 'open' | 'close'>;

interface OpRecord {
  id: number;
  op: OpName;
  file: FileHandle;
  buffer: Uint8Array | null;
  buffers: Uint8Array[] | null;
  bufferOffset: number;
  length: number;
  offset: number;
  bufIndex: number;
  state: 'queued' | 'submitted' | 'settled';
  cancelRequested: boolean;
  /** Set when the deadline fired: the cancellation is reported as DeadlineExceededError. */
  deadlineMs: number;
  timer: ReturnType<typeof setTimeout> | null;
  /** How it ended, once settled. */
  outcome: CancelOutcome | null;
  /** Set by cancel(): told the outcome when the op settles (lazily, off the hot path). */
  onSettled: ((outcome: CancelOutcome) => void) | null;
  resolve(bytes: number): void;
  reject(error: Error): void;
  /** The file's pending-operation entry. */
  cancel(): Promise<CancelOutcome>;
}

/** A FIFO with O(1) push/shift that skips ops cancelled while queued. */
class OpQueue {
  private items: OpRecord[] = [];
  private head = 0;
  push(op: OpRecord): void {
    this.items.push(op);
  }
  peek(): OpRecord | undefined {
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
class WriteQueues {
  private readonly byFile = new Map<FileHandle, OpQueue>();
  private order: FileHandle[] = [];
  private cursor = 0;
  private current: OpQueue | null = null;

  push(op: OpRecord): void {
    let queue = this.byFile.get(op.file);
    if (!queue) {
      queue = new OpQueue();
      this.byFile.set(op.file, queue);
      this.order.push(op.file);
    }
    queue.push(op);
  }

  /** The next op whose file is not held by a barrier (still queued: `shift()` takes it). */
  peek(writesInFlight: Map<FileHandle, number>): OpRecord | undefined {
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

export class IoRing {
  readonly backend: IoBackendName;
  /** Why this backend: 'requested', or why io_uring was passed over. */
  readonly backendReason: string;
  readonly depth: number;
  readonly budgetBytes: number;
  /** Slots reads leave free while writes wait. */
  readonly writeReserve: number;

  private readonly native: RawIoBackend;
  private readonly ids: Uint32Array;
  private readonly results: Float64Array;
  private readonly ops = new Map<number, OpRecord>();
  private readonly reads = new OpQueue();
  private readonly writes = new WriteQueues();
  private readonly writesByFile = new Map<FileHandle, number>();
  private nextId = 1;
  private inFlight = 0;
  private inFlightBytes = 0;
  private writesInFlight = 0;
  private pumpScheduled = false;
  /** Completions taken back with submits since the event loop last turned (see pump). */
  private inlineCompletions = 0;
  private inlineReset = false;
  private closing: Promise<void> | null = null;
  private drained: (() => void) | null = null;
  private registered = new Map<ArrayBufferLike, { index: number; start: number; end: number }>();

  constructor(options: RingOptions = {}) {
    const depth = options.depth ?? 64;
    const budget = options.budgetBytes ?? 64 * 1024 * 1024;
    const share = options.writeShare ?? 0.25;
    if (!Number.isInteger(depth) || depth < 1 || depth > 32768) throw new RangeError(`depth must be an integer in 1..32768, got ${depth}`);
    if (!(budget > 0)) throw new RangeError(`budgetBytes must be positive, got ${budget}`);
    if (!(share > 0 && share <= 1)) throw new RangeError(`writeShare must be in (0, 1], got ${share}`);
    this.depth = depth;
    this.budgetBytes = budget;
    this.writeReserve = Math.max(1, Math.floor(depth * share));
    // Completions per callback: io_uring's completion queue holds twice the depth.
    this.ids = new Uint32Array(depth * 2 + 8);
    this.results = new Float64Array(depth * 2 + 8);
    const want = options.backend ?? 'auto';
    const raw = binding();
    const complete = (count: number) => this.onComplete(count);
    if (want === 'threadpool') {
      this.native = new raw.PoolIo(depth, complete, this.ids, this.results);
      this.backend = 'threadpool';
      this.backendReason = 'requested';
      return;
    }
    try {
      this.native = new raw.UringRing(depth, complete, this.ids, this.results);
      this.backend = 'io_uring';
      this.backendReason = want === 'auto' ? 'io_uring allowed' : 'requested';
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'EIO';
      const refused = new IoUringUnavailableError(code, (error as NodeJS.ErrnoException).syscall === 'io_uring_setup' ? '' : (error as Error).message);
      if (want === 'io_uring') throw refused;
      this.native = new raw.PoolIo(depth, complete, this.ids, this.results);
      this.backend = 'threadpool';
      this.backendReason = `io_uring refused (io_uring_setup: ${code})`;
    }
  }

  /** Reads `length` bytes (default: the buffer's) at `offset`; resolves to the bytes read (short only at end of file). */
  read(file: DirectFile, buffer: Uint8Array, offset: number, length?: number, bufferOffset = 0, options?: OpOptions): IoRequest {
    return this.enqueue('read', file, buffer, null, offset, length ?? buffer.byteLength - bufferOffset, bufferOffset, options);
  }

  write(file: DirectFile, buffer: Uint8Array, offset: number, length?: number, bufferOffset = 0, options?: OpOptions): IoRequest {
    return this.enqueue('write', file, buffer, null, offset, length ?? buffer.byteLength - bufferOffset, bufferOffset, options);
  }

  /** One read scattered over several buffers, in order (vectored I/O). */
  readv(file: DirectFile, buffers: Uint8Array[], offset: number, options?: OpOptions): IoRequest {
    return this.enqueue('readv', file, null, buffers, offset, sum(buffers), 0, options);
  }

  writev(file: DirectFile, buffers: Uint8Array[], offset: number, options?: OpOptions): IoRequest {
    return this.enqueue('writev', file, null, buffers, offset, sum(buffers), 0, options);
  }

  /** Flushes the file; issued after every write to the same file queued before it has completed. */
  fsync(file: DirectFile, options?: OpOptions): IoRequest {
    return this.enqueue('fsync', file, null, null, 0, 0, 0, options);
  }

  /** Submits several ops together; settles when all have, rejecting with the first error. */
  batch(requests: IoRequest[]): Promise<number[]> {
    return Promise.all(requests);
  }

  /** Cancels the op with this id (see IoRequest.id); null when no such op is pending. */
  cancel(id: number): Promise<CancelOutcome> | null {
    const rec = this.ops.get(id);
    return rec ? this.cancelOp(rec, 0) : null;
  }

  /**
   * Registers arena slots with the kernel (io_uring fixed buffers): later ops on ranges inside
   * them skip the per-op page pinning. Replaces an earlier registration; needs an idle ring.
   */
  registerBuffers(buffers: Uint8Array[]): number {
    this.checkOpen('registerBuffers');
    if (this.inFlight > 0) throw Object.assign(new Error(`registerBuffers: ${this.inFlight} ops in flight; register before submitting`), { code: 'EBUSY' });
    const count = this.native.registerBuffers(buffers);
    this.registered = new Map(buffers.map((b, index) => [b.buffer, { index, start: b.byteOffset, end: b.byteOffset + b.byteLength }]));
    return count;
  }

  get stats(): RingStats {
    return { inFlight: this.inFlight, inFlightBytes: this.inFlightBytes, writesInFlight: this.writesInFlight, queued: this.reads.size + this.writes.size };
  }

  get closed(): boolean {
    return this.closing !== null;
  }

  /**
   * Stops taking ops, lets everything queued and in flight finish (or, with `cancel`, cancels
   * it first), then releases the ring. Idempotent.
   */
  close(options: { cancel?: boolean } = {}): Promise<void> {
    if (this.closing) return this.closing;
    if (options.cancel) for (const op of [...this.ops.values()]) void this.cancelOp(op, 0);
    this.closing = new Promise<void>((resolve) => {
      this.drained = resolve;
    }).then(() => this.native.close());
    this.pump();
    this.checkDrained();
    return this.closing;
  }

  private checkOpen(what: string): void {
    if (this.closing) throw new RingClosedError(what);
  }

  private enqueue(op: OpName, file: DirectFile, buffer: Uint8Array | null, buffers: Uint8Array[] | null, offset: number, length: number, bufferOffset: number, options?: OpOptions): IoRequest {
    let rec: OpRecord | null = null;
    const promise = new Promise<number>((resolve, reject) => {
      const handle = checkArguments(op, file, buffer, buffers, offset, length, bufferOffset, options);
      if (this.closing) throw new RingClosedError(`${op} ${handle.path}`);
      if (handle.closed) throw new IoError('EBADF', op, handle.path, offset, length);
      const record: OpRecord = {
        id: this.takeId(),
        op,
        file: handle,
        buffer,
        buffers,
        bufferOffset,
        length,
        offset,
        bufIndex: buffer && this.registered.size > 0 ? this.registeredIndex(buffer, bufferOffset, length) : -1,
        state: 'queued',
        cancelRequested: false,
        deadlineMs: 0,
        timer: null,
        outcome: null,
        onSettled: null,
        resolve,
        reject,
        cancel: () => this.cancelOp(record, 0),
      };
      rec = record;
      this.ops.set(record.id, record);
      handle.attach(record);
      if (op === 'read' || op === 'readv') this.reads.push(record);
      else this.writes.push(record);
      const deadline = options?.deadlineMs;
      if (deadline !== undefined) record.timer = setTimeout(() => void this.cancelOp(record, deadline), deadline);
      this.schedulePump();
    }) as IoRequest & { id: number };
    // Plain properties (not Object.assign): the hot path allocates one closure and one promise.
    promise.id = rec ? (rec as OpRecord).id : 0;
    promise.cancel = () => (rec ? this.cancelOp(rec, 0) : Promise.resolve<CancelOutcome>('done'));
    return promise;
  }

  private takeId(): number {
    do this.nextId = this.nextId >= 0xffffffff ? 1 : this.nextId + 1;
    while (this.ops.has(this.nextId));
    return this.nextId;
  }

  private registeredIndex(buffer: Uint8Array, bufferOffset: number, length: number): number {
    const slot = this.registered.get(buffer.buffer);
    if (!slot) return -1;
    const start = buffer.byteOffset + bufferOffset;
    return start >= slot.start && start + length <= slot.end ? slot.index : -1;
  }

  /** `deadlineMs` > 0 when the deadline fired (the rejection then says so). */
  private cancelOp(rec: OpRecord, deadlineMs: number): Promise<CancelOutcome> {
    if (rec.outcome) return Promise.resolve(rec.outcome);
    const settled = new Promise<CancelOutcome>((resolve) => {
      const earlier = rec.onSettled;
      rec.onSettled = (o) => {
        earlier?.(o);
        resolve(o);
      };
    });
    if (!rec.cancelRequested) {
      rec.cancelRequested = true;
      rec.deadlineMs = deadlineMs;
      if (rec.state === 'queued') {
        this.settle(rec, this.cancelledError(rec));
        this.checkDrained();
      } else {
        this.native.cancel(rec.id);
      }
    }
    return settled;
  }

  private cancelledError(rec: OpRecord): CancelledError {
    return rec.deadlineMs > 0 ? new DeadlineExceededError(rec.op, rec.file.path, rec.offset, rec.deadlineMs) : new CancelledError(rec.op, rec.file.path, rec.offset);
  }

  private schedulePump(): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    queueMicrotask(() => {
      this.pumpScheduled = false;
      this.pump();
    });
  }

  /**
   * Moves queued ops into the backend within depth and budget; one submit. Reads go first,
   * except that while writes wait, reads leave `writeReserve` slots to them.
   */
  private pump(): void {
    let queued = 0;
    for (;;) {
      if (this.inFlight >= this.depth) break;
      const writesWaiting = this.writes.waiting;
      const readsMayTake = !writesWaiting || this.inFlight - this.writesInFlight < this.depth - this.writeReserve;
      let next = readsMayTake ? this.reads.peek() : undefined;
      let queue: { shift(): void } = this.reads;
      if (!next && writesWaiting) {
        next = this.writes.peek(this.writesByFile);
        queue = this.writes;
      }
      // Writes all held by a barrier: reads may fill the reserve meanwhile.
      if (!next && !readsMayTake) {
        next = this.reads.peek();
        queue = this.reads;
      }
      if (!next) break;
      if (this.inFlight > 0 && this.inFlightBytes + next.length > this.budgetBytes) break;
      queue.shift();
      try {
        this.dispatch(next);
      } catch (error) {
        this.settle(next, error as Error);
        continue;
      }
      queued++;
    }
    if (queued === 0) return;
    const reap = this.inlineCompletions < this.depth * INLINE_TURNS;
    const n = this.native.submit(reap);
    if (n === 0) return;
    // Completions that were already waiting came back with the submit: settle them now. Bounded
    // per loop turn, so a ring that always has completions ready cannot starve timers and I/O.
    this.inlineCompletions += n;
    if (!this.inlineReset) {
      this.inlineReset = true;
      setImmediate(() => {
        this.inlineCompletions = 0;
        this.inlineReset = false;
      });
    }
    this.settleCompletions(n);
    this.schedulePump();
    this.checkDrained();
  }

  private dispatch(rec: OpRecord): void {
    const kind = KIND[rec.op];
    if (rec.buffers) this.native.queueVec(rec.id, kind, rec.file.fd, rec.buffers, rec.offset);
    else this.native.queue(rec.id, kind, rec.file.fd, rec.buffer, rec.bufferOffset, rec.length, rec.offset, rec.bufIndex);
    rec.state = 'submitted';
    this.inFlight++;
    this.inFlightBytes += rec.length;
    if (rec.op !== 'read' && rec.op !== 'readv') {
      this.writesInFlight++;
      this.writesByFile.set(rec.file, (this.writesByFile.get(rec.file) ?? 0) + 1);
    }
  }

  private onComplete(count: number): void {
    this.settleCompletions(count);
    this.pump();
    this.checkDrained();
  }

  /** Settles `count` completions from the shared ids/results arrays. */
  private settleCompletions(count: number): void {
    for (let i = 0; i < count; i++) {
      const rec = this.ops.get(this.ids[i]!);
      const result = this.results[i]!;
      if (!rec) continue;
      this.inFlight--;
      this.inFlightBytes -= rec.length;
      if (rec.op !== 'read' && rec.op !== 'readv') {
        this.writesInFlight--;
        const left = this.writesByFile.get(rec.file)! - 1;
        if (left === 0) this.writesByFile.delete(rec.file);
        else this.writesByFile.set(rec.file, left);
      }
      if (result >= 0) this.settle(rec, result);
      else if (rec.cancelRequested && result === -125 /* ECANCELED */) this.settle(rec, this.cancelledError(rec));
      else this.settle(rec, IoError.fromResult(result, rec.op, rec.file.path, rec.offset, rec.length));
    }
  }

  private settle(rec: OpRecord, outcome: number | Error): void {
    if (rec.state === 'settled') return;
    rec.state = 'settled';
    this.ops.delete(rec.id);
    if (rec.timer) clearTimeout(rec.timer);
    rec.buffer = null;
    rec.buffers = null;
    rec.outcome = outcome instanceof CancelledError ? 'cancelled' : 'done';
    if (typeof outcome === 'number') rec.resolve(outcome);
    else rec.reject(outcome);
    rec.onSettled?.(rec.outcome);
    rec.file.detach(rec);
  }

  private checkDrained(): void {
    if (this.drained && this.ops.size === 0) {
      const done = this.drained;
      this.drained = null;
      done();
    }
  }
}

/** Every argument check for I/O in one place. */
function checkArguments(op: IoOpName, file: DirectFile, buffer: Uint8Array | null, buffers: Uint8Array[] | null, offset: number, length: number, bufferOffset: number, options: OpOptions | undefined): FileHandle {
  const handle = fileHandle(file);
  if (!handle) throw new TypeError(`${op}: not a file from openFile()`);
  if (!Number.isSafeInteger(offset) || offset < -1) throw new RangeError(`${op} ${file.path}: offset must be an integer >= 0 (or -1 for the current position), got ${offset}`);
  if (buffer) {
    if (!(buffer instanceof Uint8Array)) throw new TypeError(`${op} ${file.path}: buffer must be a Uint8Array`);
    if (!Number.isInteger(bufferOffset) || bufferOffset < 0 || !Number.isInteger(length) || length < 0 || bufferOffset + length > buffer.byteLength)
      throw new RangeError(`${op} ${file.path}: range ${bufferOffset}+${length} is outside the ${buffer.byteLength}-byte buffer`);
    if (length > 0x7ffff000) throw new RangeError(`${op} ${file.path}: ${length} bytes is more than one op moves (2 GiB - 4 KiB)`);
  }
  if (buffers) {
    if (buffers.length === 0 || buffers.length > 1024) throw new RangeError(`${op} ${file.path}: 1..1024 buffers, got ${buffers.length}`);
    for (const b of buffers) if (!(b instanceof Uint8Array)) throw new TypeError(`${op} ${file.path}: buffers must be Uint8Arrays`);
  }
  const deadline = options?.deadlineMs;
  if (deadline !== undefined && !(Number.isFinite(deadline) && deadline > 0 && deadline <= 2 ** 31 - 1)) throw new RangeError(`${op} ${file.path}: deadlineMs must be in (0, 2^31), got ${deadline}`);
  return handle;
}

function sum(buffers: Uint8Array[]): number {
  let n = 0;
  for (const b of buffers) n += b?.byteLength ?? 0;
  return n;
}

/** Opens a ring; see {@link RingOptions}. */
export function openRing(options: RingOptions = {}): IoRing {
  return new IoRing(options);
}
