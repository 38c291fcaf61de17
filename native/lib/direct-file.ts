/**
 * Files opened for direct I/O. `direct: 'auto'` falls back to buffered I/O where the file
 * system refuses O_DIRECT, and says so in `file.direct`.
 *
 * A file knows the ring operations queued or in flight on it, and its fd is closed only after
 * every one of them has settled: an fd number is never reused while the kernel or a pool thread
 * may still write through it.
 */
import { closeSync, constants, openSync } from 'node:fs';
import { DirectIoUnavailableError, IoError } from './errors.js';

export interface OpenOptions {
  /** Create the file when missing (default false). */
  create?: boolean;
  /** Open for writing too (default: true when `create`). */
  write?: boolean;
  /** true (default): O_DIRECT or fail; 'auto': O_DIRECT where allowed; false: buffered. */
  direct?: boolean | 'auto';
}

export interface CloseOptions {
  /** Cancel queued and in-flight operations instead of letting them finish (default false). */
  cancel?: boolean;
}

export interface DirectFile {
  readonly fd: number;
  readonly path: string;
  /** Whether the file is open with O_DIRECT. */
  readonly direct: boolean;
  /** True once close() was called: new operations are refused with EBADF. */
  readonly closed: boolean;
  /** Ring operations queued or in flight on this file. */
  readonly pending: number;
  /**
   * Refuses new operations, lets the pending ones finish (or cancels them, with `cancel`; each
   * still settles with its definite outcome), then closes the fd. Idempotent.
   */
  close(options?: CloseOptions): Promise<void>;
}

/**
 * What a ring registers with a file for each pending operation. The file links its pending
 * operations through these fields (an intrusive list: attaching and detaching one touches two
 * neighbours, with no hashing and no table to grow or rehash on the per-read path); an
 * operation is pending on at most one file at a time.
 */
export interface PendingOperation {
  cancel(): unknown;
  /** The file it is pending on (set by attach, cleared by detach): null when on none. */
  pendingOn: object | null;
  prevPending: PendingOperation | null;
  nextPending: PendingOperation | null;
}

/** Alignment O_DIRECT needs for buffers, offsets and lengths on the file systems we target. */
export const DIRECT_ALIGNMENT = 4096;

class FileHandle implements DirectFile {
  /** Brand: `#handle in x` is a single property check (instanceof on a class took 14-42 ns). */
  readonly #handle = true;
  /** Pending operations in the order they were attached (see PendingOperation). */
  private first: PendingOperation | null = null;
  private last: PendingOperation | null = null;
  private count = 0;
  private closing: Promise<void> | null = null;
  private drained: (() => void) | null = null;

  constructor(
    readonly fd: number,
    readonly path: string,
    readonly direct: boolean,
  ) {}

  /** Whether `x` is a FileHandle (made by openFile). */
  static is(x: unknown): x is FileHandle {
    return typeof x === 'object' && x !== null && #handle in x;
  }

  get closed(): boolean {
    return this.closing !== null;
  }

  get pending(): number {
    return this.count;
  }

  close(options: CloseOptions = {}): Promise<void> {
    if (options.cancel) for (const op of this.pendingList()) op.cancel();
    if (this.closing) return this.closing;
    this.closing = new Promise<void>((resolve) => (this.drained = resolve)).then(() => {
      try {
        closeSync(this.fd);
      } catch (error) {
        throw new IoError((error as NodeJS.ErrnoException).code ?? 'EIO', 'close', this.path, 0, 0);
      }
    });
    this.checkDrained();
    return this.closing;
  }

  /** Adds `op` (pending on no file, or already on this one: then a no-op) last. */
  attach(op: PendingOperation): void {
    if (op.pendingOn === this) return;
    if (op.pendingOn !== null) throw new Error(`${this.path}: the operation is pending on another file`);
    op.pendingOn = this;
    op.prevPending = this.last;
    op.nextPending = null;
    if (this.last) this.last.nextPending = op;
    else this.first = op;
    this.last = op;
    this.count++;
  }

  /** Removes `op` if it is pending here (else a no-op); closes the fd once none are left. */
  detach(op: PendingOperation): void {
    if (op.pendingOn === this) {
      const { prevPending: prev, nextPending: next } = op;
      if (prev) prev.nextPending = next;
      else this.first = next;
      if (next) next.prevPending = prev;
      else this.last = prev;
      op.pendingOn = null;
      op.prevPending = null;
      op.nextPending = null;
      this.count--;
    }
    this.checkDrained();
  }

  /** The pending operations now, in the order they were attached (a copy). */
  private pendingList(): PendingOperation[] {
    const list: PendingOperation[] = [];
    for (let op = this.first; op; op = op.nextPending) list.push(op);
    return list;
  }

  private checkDrained(): void {
    if (this.drained && this.count === 0) {
      const done = this.drained;
      this.drained = null;
      done();
    }
  }
}

/** The handle behind a DirectFile from openFile, or undefined for any other object. */
export function fileHandle(file: unknown): FileHandle | undefined {
  return FileHandle.is(file) ? file : undefined;
}

export type { FileHandle };

export function openFile(path: string, options: OpenOptions = {}): DirectFile {
  const write = options.write ?? Boolean(options.create);
  const want = options.direct ?? true;
  let flags = (write ? constants.O_RDWR : constants.O_RDONLY) | (options.create ? constants.O_CREAT : 0);
  const tryOpen = (direct: boolean): number => {
    try {
      return openSync(path, flags | (direct ? constants.O_DIRECT : 0), 0o600);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'EIO';
      if (direct && code === 'EINVAL') throw new DirectIoUnavailableError(path);
      throw new IoError(code, 'open', path, 0, 0);
    }
  };
  let direct = want !== false;
  let fd: number;
  try {
    fd = tryOpen(direct);
  } catch (error) {
    if (!(error instanceof DirectIoUnavailableError) || want !== 'auto') throw error;
    direct = false;
    fd = tryOpen(false);
  }
  return new FileHandle(fd, path, direct);
}
