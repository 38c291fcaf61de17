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
import { KIND, Op, OpQueue, OpTable, WriteQueues, type CancelHook, type CancelOutcome, type OpCallback, type OpName } from './io-op.js';

export type { CancelOutcome, OpCallback } from './io-op.js';

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
  private readonly ops = new OpTable();
  private readonly reads = new OpQueue();
  private readonly writes = new WriteQueues();
  private readonly writesByFile = new Map<FileHandle, number>();
  private nextId = 1;
  /** Set once nextId has wrapped past 2^32 - 1: from then on takeId skips ids still in use. */
  private idsWrapped = false;
  private inFlight = 0;
  private inFlightBytes = 0;
  private writesInFlight = 0;
  private pumpScheduled = false;
  /** Completions taken back with submits since the event loop last turned (see pump). */
  private inlineCompletions = 0;
  private inlineReset = false;
  /**
   * True while settleCompletions reads the shared ids/results arrays: a pump that callbacks
   * start then (close() pumps at once) submits without reaping, since a reap writes the arrays.
   */
  private settling = false;
  private closing: Promise<void> | null = null;
  private drained: (() => void) | null = null;
  /** Registered slots by the ArrayBuffer they are in, sorted by start (an arena's slots share one). */
  private registered = new Map<ArrayBufferLike, RegisteredSlot[]>();
  /** One pump's ops as rows for one native queueMany call (see QUEUE_ROW), with their buffers. */
  private readonly table: Float64Array;
  private readonly rowBuffers: (Uint8Array | null)[];
  private readonly rowOps: (Op | null)[];
  private readonly cancelHook: CancelHook = (op, deadlineMs) => this.cancelOp(op, deadlineMs);
  /** Settled submitRead records for reuse (at most a depth's worth; see settle). */
  private readonly spare: Op[] = [];

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
    // Completions per callback (and per inline reap): a quarter of the depth, so the first ops
    // of a burst are resubmitted while the rest still wait (a device that completes 64 reads in
    // one interrupt otherwise idles while JS settles all 64), in batches large enough that the
    // native crossing and the submit are shared. Random 4 KiB reads at depth 64 on the dev VM's
    // disk, same mirrored rounds (spec/bench/results/io-cpu.txt): 16 per callback 0.4-0.9 µs/op
    // less CPU than 8 at the same or better IOPS; 32 less CPU again but fewer IOPS; 4 and 1
    // fewer IOPS and more CPU (1: 24 µs/op).
    const chunk = Math.max(4, Math.ceil(depth / 4));
    this.ids = new Uint32Array(chunk);
    this.results = new Float64Array(chunk);
    // The buffers go to the addon as call arguments, so one call takes at most MAX_CALL_ROWS
    // rows (a deeper ring's pump makes more calls).
    const callRows = Math.min(depth, MAX_CALL_ROWS);
    this.table = new Float64Array(callRows * QUEUE_ROW);
    this.rowBuffers = new Array<Uint8Array | null>(callRows).fill(null);
    this.rowOps = new Array<Op | null>(callRows).fill(null);
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

  /**
   * A read that reports to a callback instead of a promise: the hot path for callers that keep
   * many small reads in flight (no promise, no microtask and no request object per op). Same
   * scheduling, limits and outcomes as read(); `done(error, bytes)` runs once, from the batch
   * of completions that holds the op (an exception it throws is rethrown on its own, after the
   * batch is settled). Argument errors and a closed ring or file throw here. Returns the op's
   * id, for `ring.cancel(id)`.
   *
   * @example
   * ring.submitRead(file, slot, offset, (error, bytes) => { if (!error) serve(slot, bytes); });
   */
  submitRead(file: DirectFile, buffer: Uint8Array, offset: number, done: OpCallback, length?: number, bufferOffset = 0): number {
    if (typeof done !== 'function') throw new TypeError('submitRead: done must be a function');
    if (!(buffer instanceof Uint8Array)) throw new TypeError('submitRead: buffer must be a Uint8Array');
    const len = length ?? buffer.byteLength - bufferOffset;
    const handle = checkArguments('read', file, buffer, null, offset, len, bufferOffset, undefined);
    if (this.closing) throw new RingClosedError(`read ${handle.path}`);
    if (handle.closed) throw new IoError('EBADF', 'read', handle.path, offset, len);
    const bufIndex = this.registered.size > 0 ? this.registeredIndex(buffer, bufferOffset, len) : -1;
    const id = this.takeId();
    const rec = this.spare.pop()?.reuseAsRead(id, handle, buffer, bufferOffset, len, offset, bufIndex, done) ?? new Op(id, 'read', handle, buffer, null, bufferOffset, len, offset, bufIndex, null, null, done, this.cancelHook);
    this.ops.set(id, rec);
    handle.attach(rec);
    this.reads.push(rec);
    this.schedulePump();
    return rec.id;
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
    // The binding lets go of the earlier registration before it makes the new one, so a call
    // that fails leaves none: forget it first, or later ops name indexes the kernel lacks.
    this.registered = new Map();
    const count = this.native.registerBuffers(buffers);
    const slots = new Map<ArrayBufferLike, RegisteredSlot[]>();
    buffers.forEach((b, index) => {
      const slot = { index, start: b.byteOffset, end: b.byteOffset + b.byteLength };
      const list = slots.get(b.buffer);
      if (list) list.push(slot);
      else slots.set(b.buffer, [slot]);
    });
    for (const list of slots.values()) list.sort((a, b) => a.start - b.start);
    this.registered = slots;
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
    if (options.cancel) for (const op of this.ops.values()) void this.cancelOp(op, 0);
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
    let handle: FileHandle;
    try {
      handle = checkArguments(op, file, buffer, buffers, offset, length, bufferOffset, options);
      if (this.closing) throw new RingClosedError(`${op} ${handle.path}`);
      if (handle.closed) throw new IoError('EBADF', op, handle.path, offset, length);
    } catch (error) {
      return refusedRequest(error as Error);
    }
    const promise = new Promise<number>(captureSettlers) as IoRequest & { id: number; cancel(): Promise<CancelOutcome> };
    const bufIndex = buffer && this.registered.size > 0 ? this.registeredIndex(buffer, bufferOffset, length) : -1;
    const rec = new Op(this.takeId(), op, handle, buffer, buffers, bufferOffset, length, offset, bufIndex, capturedResolve!, capturedReject!, null, this.cancelHook);
    this.ops.set(rec.id, rec);
    handle.attach(rec);
    if (rec.isRead) this.reads.push(rec);
    else this.writes.push(rec);
    const deadline = options?.deadlineMs;
    if (deadline !== undefined) rec.timer = setTimeout(() => void this.cancelOp(rec, deadline), deadline);
    this.schedulePump();
    promise.id = rec.id;
    promise.cancel = () => rec.cancel();
    return promise;
  }

  private takeId(): number {
    // Until the ids first wrap they only grow, so none can still be in use: the map is asked
    // only after a wrap.
    if (this.nextId < 0xffffffff && !this.idsWrapped) return ++this.nextId;
    this.idsWrapped = true;
    do this.nextId = this.nextId >= 0xffffffff ? 1 : this.nextId + 1;
    while (this.ops.has(this.nextId));
    return this.nextId;
  }

  private registeredIndex(buffer: Uint8Array, bufferOffset: number, length: number): number {
    const slots = this.registered.get(buffer.buffer);
    if (!slots) return -1;
    const start = buffer.byteOffset + bufferOffset;
    // The last slot that starts at or before `start` (one step for a buffer of one slot).
    let lo = 0;
    let hi = slots.length - 1;
    let at = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (slots[mid]!.start <= start) {
        at = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    if (at < 0) return -1;
    const slot = slots[at]!;
    return start + length <= slot.end ? slot.index : -1;
  }

  /** `deadlineMs` > 0 when the deadline fired (the rejection then says so). */
  private cancelOp(rec: Op, deadlineMs: number): Promise<CancelOutcome> {
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

  private cancelledError(rec: Op): CancelledError {
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
   * Moves queued ops into the backend within depth and budget, in one native call. Reads go
   * first, except that while writes wait, reads leave `writeReserve` slots to them.
   */
  private pump(): void {
    let rows = 0;
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
      if (next.buffers) {
        // Vectored: its own call (the kernel sees it with the rows, in the same submit).
        try {
          this.native.queueVec(next.id, KIND[next.op], next.file.fd, next.buffers, next.offset);
        } catch (error) {
          this.settle(next, error as Error);
          continue;
        }
        this.account(next);
      } else {
        this.addRow(rows++, next);
        // A full table goes now (no reaping: the last call of the pump reaps).
        if (rows === this.rowOps.length) {
          this.queueRows(rows, false);
          rows = 0;
        }
      }
      queued++;
    }
    if (queued === 0) return;
    const n = this.queueRows(rows, !this.settling && this.inlineCompletions < this.depth * INLINE_TURNS);
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

  /** Writes `op` as row `row` of the table (queue()'s arguments) and counts it as in flight. */
  private addRow(row: number, op: Op): void {
    const at = row * QUEUE_ROW;
    const t = this.table;
    t[at] = op.id;
    t[at + 1] = KIND[op.op];
    t[at + 2] = op.file.fd;
    t[at + 3] = op.bufferOffset;
    t[at + 4] = op.length;
    t[at + 5] = op.offset;
    t[at + 6] = op.bufIndex;
    this.rowBuffers[row] = op.buffer;
    this.rowOps[row] = op;
    this.account(op);
  }

  /**
   * Queues and submits rows [0, rows) in one call; a row the binding refuses settles with its
   * error and the rows after it go in a further call. Returns the completions handed back
   * (always 0 without `reap`).
   */
  private queueRows(rows: number, reap: boolean): number {
    let start = 0;
    let completions = 0;
    try {
      while (start <= rows) {
        try {
          // The buffers as arguments (row i's is argument 4 + i): the addon reads an argument
          // for the cost of a pointer load, an array element through V8's generic lookup.
          completions = this.native.queueMany(start, rows, this.table, reap, ...this.rowBuffers);
          break;
        } catch (error) {
          const at = (error as { index?: unknown }).index;
          if (typeof at !== 'number' || at < start || at >= rows) throw error;
          const op = this.rowOps[at]!;
          this.unaccount(op);
          this.settle(op, error as Error);
          start = at + 1;
        }
      }
    } finally {
      // Plain loops: fill(value, start, end) is a call into the runtime.
      for (let i = 0; i < rows; i++) {
        this.rowBuffers[i] = null;
        this.rowOps[i] = null;
      }
    }
    return completions;
  }

  private account(rec: Op): void {
    rec.state = 'submitted';
    this.inFlight++;
    this.inFlightBytes += rec.length;
    if (!rec.isRead) {
      this.writesInFlight++;
      this.writesByFile.set(rec.file, (this.writesByFile.get(rec.file) ?? 0) + 1);
    }
  }

  /** Undoes account() for an op the binding refused (it never reached the kernel). */
  private unaccount(rec: Op): void {
    rec.state = 'queued';
    this.release(rec);
  }

  private onComplete(count: number): void {
    // What the callbacks submit goes out with the pump right after them: no microtask for it.
    const scheduled = this.pumpScheduled;
    this.pumpScheduled = true;
    try {
      this.settleCompletions(count);
    } finally {
      this.pumpScheduled = scheduled;
    }
    this.pump();
    this.checkDrained();
  }

  /** Settles `count` completions from the shared ids/results arrays. */
  private settleCompletions(count: number): void {
    const outer = this.settling;
    this.settling = true;
    try {
      for (let i = 0; i < count; i++) {
        const rec = this.ops.get(this.ids[i]!);
        const result = this.results[i]!;
        if (!rec) continue;
        this.release(rec);
        if (result >= 0) this.settle(rec, result);
        else if (rec.cancelRequested && result === -125 /* ECANCELED */) this.settle(rec, this.cancelledError(rec));
        else this.settle(rec, IoError.fromResult(result, rec.op, rec.file.path, rec.offset, rec.length));
      }
    } finally {
      this.settling = outer;
    }
  }

  /** The op left the backend: its share of depth, budget and its file's write count. */
  private release(rec: Op): void {
    this.inFlight--;
    this.inFlightBytes -= rec.length;
    if (!rec.isRead) {
      this.writesInFlight--;
      const left = this.writesByFile.get(rec.file)! - 1;
      if (left === 0) this.writesByFile.delete(rec.file);
      else this.writesByFile.set(rec.file, left);
    }
  }

  private settle(rec: Op, outcome: number | Error): void {
    if (rec.state === 'settled') return;
    // A record cancelled while queued is still in its queue (skipped there later): never reused.
    const reusable = rec.done !== null && rec.state === 'submitted' && this.spare.length < this.depth;
    rec.state = 'settled';
    this.ops.delete(rec.id);
    if (rec.timer) clearTimeout(rec.timer);
    rec.buffer = null;
    rec.buffers = null;
    rec.outcome = typeof outcome !== 'number' && outcome instanceof CancelledError ? 'cancelled' : 'done';
    if (rec.done) callBack(rec.done, outcome);
    else if (typeof outcome === 'number') rec.resolve!(outcome);
    else rec.reject!(outcome);
    rec.onSettled?.(rec.outcome);
    rec.file.detach(rec);
    if (reusable) {
      rec.done = null;
      rec.onSettled = null;
      this.spare.push(rec);
    }
  }

  private checkDrained(): void {
    if (this.drained && this.ops.size === 0) {
      const done = this.drained;
      this.drained = null;
      done();
    }
  }
}

/** A registered buffer: its index with the kernel and its byte range in its ArrayBuffer. */
interface RegisteredSlot {
  index: number;
  start: number;
  end: number;
}

/** Numbers per op in the table queueMany reads (the native kQueueRow). */
const QUEUE_ROW = 7;
/** Most rows (so buffer arguments) one queueMany call takes. */
const MAX_CALL_ROWS = 64;

// The settlers of the promise being made: a shared executor instead of a closure per op.
let capturedResolve: ((bytes: number) => void) | null = null;
let capturedReject: ((error: Error) => void) | null = null;
function captureSettlers(resolve: (bytes: number) => void, reject: (error: Error) => void): void {
  capturedResolve = resolve;
  capturedReject = reject;
}

/**
 * Tells a callback-style op its outcome. What the callback throws must not cut a batch of
 * completions short (the rest would never settle): it is rethrown on its own, as an uncaught
 * exception, once this batch is done.
 */
function callBack(done: OpCallback, outcome: number | Error): void {
  try {
    if (typeof outcome === 'number') done(null, outcome);
    else done(outcome, 0);
  } catch (error) {
    queueMicrotask(() => {
      throw error;
    });
  }
}

/** An op refused before it had an id: a rejected request whose cancel says it is done. */
function refusedRequest(error: Error): IoRequest {
  const promise = Promise.reject(error) as IoRequest & { id: number; cancel(): Promise<CancelOutcome> };
  promise.id = 0;
  promise.cancel = () => Promise.resolve<CancelOutcome>('done');
  return promise;
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
