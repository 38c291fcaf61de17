/**
 * Loads the compiled addon (`native/build/Release/orbitkv_native.node`) once and types it.
 * Only this file touches the raw binding; everything else goes through `native/index.ts`.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NativeUnavailableError } from './errors.js';

/** Completion callback: `count` pairs are waiting in the backend's `ids` / `results` arrays. */
export type CompletionCallback = (count: number) => void;

/** The primitive both I/O backends implement (io_uring and the libuv thread pool). */
export interface RawIoBackend {
  queue(id: number, kind: number, fd: number, buffer: Uint8Array | null, bufferOffset: number, length: number, fileOffset: number, bufIndex: number): void;
  queueVec(id: number, kind: number, fd: number, buffers: Uint8Array[], fileOffset: number): void;
  /** With `reap`, returns completions already waiting, written into ids/results for the caller (no callback). */
  submit(reap?: boolean): number;
  /** Queues rows [start, end) of `table` (7 numbers each: queue()'s id..bufIndex) with buffers[row], then submit(reap); a refused row throws with `index`. */
  /** Rows [start, end) of `table`; row i's buffer is the argument after `reap` at position i. */
  queueMany(start: number, end: number, table: Float64Array, reap: boolean, ...buffers: (Uint8Array | null)[]): number;
  cancel(id: number): boolean;
  registerBuffers(buffers: Uint8Array[]): number;
  close(): void;
  readonly inFlight: number;
  readonly depth: number;
  /** io_uring only: kernel entries that submitted (how finely submissions reach the disk). */
  readonly kernelSubmits?: number;
}

export type RawIoBackendClass = new (depth: number, onComplete: CompletionCallback, ids: Uint32Array, results: Float64Array) => RawIoBackend;

export interface RawCuda {
  /** Loads libcuda and runs cuInit; returns '' when ready, else the reason it is not. */
  load(): string;
  call(name: string, ...args: unknown[]): unknown;
}

/** One connected AF_UNIX socket owned natively (a dup of the fd handed in). */
export interface RawUnixSocket {
  /** Bytes the kernel took (the fds go with the first); -1 when the socket would block. */
  send(bytes: Uint8Array, fds: number[]): number;
  /** [bytes, fdCount]: bytes -1 when nothing waits, 0 at end of stream; fds land in fdsOut. */
  recv(buffer: Uint8Array, fdsOut: Int32Array): [number, number];
  peer(): RawPeerCredentials;
  watch(readable: boolean, writable: boolean): void;
  close(): void;
  readonly fd: number;
}

export interface RawPeerCredentials {
  pid: number;
  uid: number;
  gid: number;
}

export interface RawBinding {
  allocAligned(size: number, alignment: number): Buffer;
  bufferAddress(buffer: Uint8Array): bigint;
  peerCredentials(fd: number): RawPeerCredentials;
  UnixSocket: new (fd: number, onReady: (readable: boolean, writable: boolean, error: string | null) => void) => RawUnixSocket;
  createMemfd(name: string, size: number): number;
  openSharedFile(path: string, size: number, create: boolean): number;
  mapShared(fd: number, length: number, offset: number, requireSealed: boolean): ArrayBuffer;
  unmapShared(buffer: ArrayBuffer): boolean;
  liveMappings(): number;
  liveOps(): number;
  adjustExternalMemory(delta: number): number;
  UringRing: RawIoBackendClass;
  PoolIo: RawIoBackendClass;
  cuda: Record<string, (...args: any[]) => any>;
}

const ADDON = join('native', 'build', 'Release', 'orbitkv_native.node');
let cached: RawBinding | undefined;
let failure: NativeUnavailableError | undefined;

/** Where the addon is looked for: `ORBITKV_NATIVE_ADDON`, else the package root above this file. */
export function addonPath(): string {
  const override = process.env['ORBITKV_NATIVE_ADDON'];
  if (override) return resolve(override);
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'native', 'binding.gyp'))) return join(dir, ADDON);
    dir = dirname(dir);
  }
  return resolve(ADDON);
}

/** The addon, or a `NativeUnavailableError` that says what is missing and how to rebuild. */
export function binding(): RawBinding {
  if (cached) return cached;
  if (failure) throw failure;
  const path = addonPath();
  if (!existsSync(path)) {
    failure = new NativeUnavailableError(`the native addon is not built (${path} is missing)`);
    throw failure;
  }
  try {
    cached = createRequire(import.meta.url)(path) as RawBinding;
    return cached;
  } catch (error) {
    failure = new NativeUnavailableError(`the native addon at ${path} failed to load: ${(error as Error).message}`);
    throw failure;
  }
}

/** True when the addon loads; never throws. */
export function nativeAvailable(): boolean {
  try {
    binding();
    return true;
  } catch {
    return false;
  }
}
