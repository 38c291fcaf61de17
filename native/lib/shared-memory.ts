/**
 * Shared memory the Manager can hand to other processes: memfds (sealed at their size) and
 * owner-only files, mapped MAP_SHARED into ArrayBuffers. Pass the fd over an {@link FdChannel};
 * the peer maps the same pages and sees every write.
 *
 * @example
 * const fd = createMemfd('dram-tier', 1 << 20);
 * const pages = new Uint8Array(mapShared(fd, 1 << 20));
 * await channel.send(Buffer.from('tier'), [fd]);
 * unmapShared(pages.buffer);
 */
import { binding } from './binding.js';
import { SystemCallError } from './errors.js';

export interface MapOptions {
  /** Byte offset into the file, a multiple of the page size (default 0). */
  offset?: number;
  /** Refuse fds not sealed against shrinking (F_SEAL_SHRINK): use for fds from peers. */
  requireSealed?: boolean;
}

function native<T>(call: () => T): T {
  try {
    return call();
  } catch (error) {
    throw SystemCallError.from(error);
  }
}

/** A memfd of `size` bytes, close-on-exec, sealed so no holder can grow or shrink it. */
export function createMemfd(name: string, size: number): number {
  return native(() => binding().createMemfd(name, size));
}

/**
 * Opens (or with `create`, creates exclusively) a regular file only this user can open, mode
 * 0600, refusing symlinks and files others could read. Existing files must hold `size` bytes.
 */
export function openSharedFile(path: string, size: number, options: { create?: boolean } = {}): number {
  return native(() => binding().openSharedFile(path, size, options.create ?? false));
}

/**
 * Maps `length` bytes of `fd` read-write and shared. Ranges past the end of the file are
 * refused (touching them would raise SIGBUS). The mapping outlives the fd; close it freely.
 */
export function mapShared(fd: number, length: number, options: MapOptions = {}): ArrayBuffer {
  return native(() => binding().mapShared(fd, length, options.offset ?? 0, options.requireSealed ?? false));
}

/**
 * Detaches a mapping's ArrayBuffer at once (every view reads as empty); the pages are unmapped
 * as soon as no in-flight I/O uses them. False when it was already unmapped. Unreferenced
 * mappings are unmapped by the garbage collector too, but explicit release is the rule.
 */
export function unmapShared(buffer: ArrayBuffer): boolean {
  return native(() => binding().unmapShared(buffer));
}

/** Mappings still mapped in this process (specs assert release). */
export function liveMappings(): number {
  return binding().liveMappings();
}
