/**
 * Every error the native module raises. I/O errors carry the errno name, the operation, the
 * file and the offset; CUDA errors carry the `CUresult` name; availability errors say why.
 */
import { getSystemErrorName } from 'node:util';

export const REBUILD_HINT = 'rebuild it with `npm run install` (needs g++, make and liburing-dev)';

/** The addon is missing or failed to load. */
export class NativeUnavailableError extends Error {
  readonly code = 'ENATIVE_UNAVAILABLE';
  constructor(reason: string) {
    super(`${reason}; ${REBUILD_HINT}`);
    this.name = 'NativeUnavailableError';
  }
}

export type IoOpName = 'read' | 'write' | 'fsync' | 'readv' | 'writev' | 'open' | 'close';

/** A failed I/O operation: `code` is the errno name (EINVAL, ENOSPC, EFBIG, ...). */
export class IoError extends Error {
  constructor(
    readonly code: string,
    readonly op: IoOpName,
    readonly file: string,
    readonly offset: number,
    readonly length: number,
  ) {
    super(`${op} ${file} at offset ${offset} (${length} bytes): ${code}`);
    this.name = 'IoError';
  }

  static fromResult(result: number, op: IoOpName, file: string, offset: number, length: number): IoError {
    return new IoError(errnoName(-result), op, file, offset, length);
  }
}

/** io_uring cannot be used here; `code` is what io_uring_setup returned (EPERM, ENOSYS, ...). */
export class IoUringUnavailableError extends Error {
  constructor(readonly code: string, detail: string) {
    super(`io_uring is refused here (io_uring_setup: ${code}${detail ? `: ${detail}` : ''}); seccomp profiles (Docker, Kubernetes) and kernel.io_uring_disabled do this. Use backend 'threadpool', or 'auto' to fall back`);
    this.name = 'IoUringUnavailableError';
  }
}

/** The file system refused O_DIRECT for this file. */
export class DirectIoUnavailableError extends Error {
  readonly code = 'EINVAL';
  constructor(readonly file: string) {
    super(`O_DIRECT is refused for ${file} (open: EINVAL); open it with direct: 'auto' to fall back to buffered I/O`);
    this.name = 'DirectIoUnavailableError';
  }
}

/** An operation on a ring that is closed or closing. */
export class RingClosedError extends Error {
  readonly code = 'ERING_CLOSED';
  constructor(op: string) {
    super(`${op}: the ring is closed`);
    this.name = 'RingClosedError';
  }
}

/** The operation was cancelled before it moved any byte. */
export class CancelledError extends Error {
  readonly code: string = 'ECANCELED';
  constructor(op: IoOpName, file: string, offset: number) {
    super(`${op} ${file} at offset ${offset}: cancelled`);
    this.name = 'CancelledError';
  }
}

/** The operation's deadline passed first; it was cancelled and never moved a byte. */
export class DeadlineExceededError extends CancelledError {
  override readonly code = 'ETIMEDOUT';
  constructor(op: IoOpName, file: string, offset: number, readonly deadlineMs: number) {
    super(op, file, offset);
    this.message = `${op} ${file} at offset ${offset}: deadline of ${deadlineMs} ms passed`;
    this.name = 'DeadlineExceededError';
  }
}

/** No usable CUDA driver; `reason` says why (no libcuda, cuInit failed, no device). */
export class CudaUnavailableError extends Error {
  readonly code = 'ECUDA_UNAVAILABLE';
  constructor(readonly reason: string, call?: string) {
    super(`${call ? `${call}: ` : ''}CUDA is unavailable: ${reason}`);
    this.name = 'CudaUnavailableError';
  }
}

/** A CUDA driver call failed; `code` is the CUresult name. */
export class CudaError extends Error {
  constructor(readonly code: string, readonly call: string, detail?: string) {
    super(`${call}: ${code}${detail ? ` (${detail})` : ''}`);
    this.name = 'CudaError';
  }
}

export function errnoName(errno: number): string {
  try {
    return getSystemErrorName(-Math.abs(errno));
  } catch {
    return `E${errno}`;
  }
}

/** A system call in the native layer failed: `code` is the errno name, `syscall` the call. */
export class SystemCallError extends Error {
  constructor(readonly code: string, readonly syscall: string, message: string) {
    super(message);
    this.name = 'SystemCallError';
  }

  /** Re-types what the addon threw (a plain Error carrying code and syscall); others pass through. */
  static from(error: unknown): unknown {
    const e = error as NodeJS.ErrnoException;
    if (e instanceof Error && typeof e.code === 'string' && typeof e.syscall === 'string' && !(e instanceof SystemCallError)) return new SystemCallError(e.code, e.syscall, e.message);
    return error;
  }
}

/** The process at the other end of a Unix socket runs as a user this side does not accept. */
export class PeerRefusedError extends Error {
  readonly code = 'EPERM';
  constructor(readonly pid: number, readonly uid: number, readonly allowed: readonly number[]) {
    super(`peer pid ${pid} runs as uid ${uid}; only uid ${allowed.join(', ')} may connect`);
    this.name = 'PeerRefusedError';
  }
}

/** The peer broke the channel's framing (or sent more than the bounds allow); the channel is closed. */
export class ChannelProtocolError extends Error {
  readonly code = 'EPROTO';
  constructor(detail: string) {
    super(`fd channel: ${detail}`);
    this.name = 'ChannelProtocolError';
  }
}

/** A send on a channel that is closed, or closed before the message went out. */
export class ChannelClosedError extends Error {
  readonly code = 'ECHANNEL_CLOSED';
  constructor(what: string) {
    super(`${what}: the fd channel is closed`);
    this.name = 'ChannelClosedError';
  }
}
