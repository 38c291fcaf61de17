/**
 * fallocate(2) of a file's range on a libuv pool thread (the native module opens and closes the
 * file there). Spawning fallocate(1) from a process that holds a large DRAM arena held its JS
 * thread in ChildProcess.spawn for ~0.6 s (dev VM, 320 MiB arena); this holds it for nothing.
 *
 * @example
 * const problem = await fallocateFile('/var/cache/okv/blocks.dat', 0, 1 << 30);
 * if (problem !== null) console.log(`not reserved: ${problem}`); // e.g. EOPNOTSUPP, ENOSPC
 */
import { binding } from './binding.js';

interface RawFallocate {
  fallocateFile(path: string, offset: number, length: number): Promise<string | null>;
}

/**
 * Allocates [offset, offset + length) of the file at `path` (it grows to cover the range);
 * resolves null once done, or the errno's name where the file system or the disk refused
 * (ENOSPC, EFBIG, EOPNOTSUPP, ENOENT, EACCES...). Throws at once for arguments out of range.
 */
export function fallocateFile(path: string, offset: number, length: number): Promise<string | null> {
  if (typeof path !== 'string' || path.length === 0 || path.includes('\0')) throw new TypeError('path must be a non-empty string without NUL');
  if (!Number.isSafeInteger(offset) || offset < 0) throw new RangeError(`offset must be a non-negative safe integer, got ${offset}`);
  if (!Number.isSafeInteger(length) || length < 1 || offset + length > Number.MAX_SAFE_INTEGER) throw new RangeError(`length must be a positive safe integer with offset + length at most 2^53 - 1, got ${length}`);
  return (binding() as unknown as RawFallocate).fallocateFile(path, offset, length);
}
