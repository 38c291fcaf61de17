/**
 * Reads of the Manager's client sockets into one reusable buffer, instead of a new ArrayBuffer
 * per read.
 *
 * Node gives each read of a socket a fresh ArrayBuffer (a 64 KiB allocation shrunk to what was
 * read). A lookup is two reads (its frame and its RELEASE), so at 10,000 lookups/s that is
 * 20,000 ArrayBuffers a second the garbage collector must sweep: the sweep was 0.136 ms of every
 * young-generation pause on the development VM, 0.04-0.06 ms with this (`--trace-gc-nvp`,
 * spec/bench/results/runtime-gc-dev-vm.txt). The array-buffer sweep at the start of incremental
 * marking (3-6 ms there, under 0.6 ms on the H100 hosts) did not change with it.
 *
 * Node's own answer is `new net.Socket({ onread: { buffer, callback } })`, which `net.Server`
 * does not offer for the sockets it accepts. This sets the same three fields that option sets
 * (the socket's `kBuffer`, `kBufferCb` and `kBufferGen`, found by their symbols' descriptions)
 * and switches the handle to the user buffer, on a socket accepted paused (`pauseOnConnect`), so
 * before its first read. Where a Node release lacks any of them nothing is changed and the
 * caller reads 'data' as before: `adoptReadBuffer` says which (spec/runtime/read-buffer.spec.ts
 * holds this Node to the fast one).
 *
 * One buffer serves every connection: libuv reads a socket into it and calls back at once, and
 * the callback (the frame decoder) copies whatever it keeps before it returns.
 */
import type { Socket } from 'node:net';

/** The most bytes one read takes (a larger frame arrives over several reads, as before). */
export const READ_BUFFER_BYTES = 64 * 1024;

let shared: Buffer | null = null;

interface UserBufferHandle {
  reading?: boolean;
  useUserBuffer?: (buffer: Uint8Array) => void;
}

/**
 * Makes `socket` read into the shared buffer and hand each chunk to `onChunk` (a view valid only
 * during the call). Returns false, changing nothing, where this Node does not have the fields or
 * the socket is already reading.
 */
export function adoptReadBuffer(socket: Socket, onChunk: (chunk: Buffer) => void): boolean {
  const handle = (socket as unknown as { _handle?: UserBufferHandle | null })._handle;
  if (!handle || typeof handle.useUserBuffer !== 'function' || handle.reading === true) return false;
  const symbols = Object.getOwnPropertySymbols(socket);
  const field = (name: string) => symbols.find((s) => s.description === name);
  const kBuffer = field('kBuffer');
  const kBufferCb = field('kBufferCb');
  const kBufferGen = field('kBufferGen');
  if (kBuffer === undefined || kBufferCb === undefined || kBufferGen === undefined) return false;
  const fields = socket as unknown as Record<symbol, unknown>;
  // Only a socket created without `onread` (all three unset) is switched.
  if (fields[kBuffer] != null || fields[kBufferCb] != null || fields[kBufferGen] != null) return false;
  const buffer = (shared ??= Buffer.allocUnsafe(READ_BUFFER_BYTES));
  fields[kBuffer] = buffer;
  fields[kBufferCb] = (nread: number, into: Buffer) => {
    onChunk(into.subarray(0, nread));
  };
  fields[kBufferGen] = null;
  handle.useUserBuffer(buffer);
  return true;
}
