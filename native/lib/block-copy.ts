/**
 * Block copies off the JS thread, and CRC-32C. `copyBlocks` moves a batch of byte ranges on a
 * libuv pool thread (one native call and one promise per batch), checksums what it wrote per
 * group of ranges (CRC-32C, the SSE4.2 instruction where present, in the same pass as the copy)
 * and sets a range's flag byte after its bytes. Every buffer stays pinned until the batch
 * settles, so a mapping unmapped meanwhile is released only after the copy.
 *
 * @example
 * const [crc] = await copyBlocks([{ from: page, fromOffset: 0, to: slot, toOffset: 0, length: slot.length, group: 0 }], 1);
 * crc === crc32c(slot);
 */
import { binding } from './binding.js';

export interface CopyRange {
  from: Uint8Array;
  fromOffset: number;
  to: Uint8Array;
  toOffset: number;
  length: number;
  /** A byte set to `value` once this range's bytes are in place (release order). */
  flag?: { bytes: Uint8Array; at: number; value: number };
  /** The checksum group the written bytes count toward (in range order); none when absent. */
  group?: number;
}

interface RawBlockCopy {
  copyBlocks(table: Float64Array, rows: number, buffers: Uint8Array[], groups: number): Promise<Uint32Array>;
  crc32c(bytes: Uint8Array, seed?: number): number;
  crc32cHardware(): boolean;
  populatePages(bytes: Uint8Array): Promise<'touch'>;
}

const raw = () => binding() as unknown as RawBlockCopy;
const ROW = 9;

const checkRange = (what: string, view: Uint8Array, at: number, length: number) => {
  if (!(view instanceof Uint8Array)) throw new TypeError(`${what} must be a Uint8Array`);
  if (!Number.isSafeInteger(at) || at < 0 || !Number.isSafeInteger(length) || length < 0 || at + length > view.byteLength) throw new RangeError(`${what}: ${at}+${length} is outside its ${view.byteLength} bytes`);
};

/**
 * Copies every range (ranges must not overlap each other's destinations) and resolves with
 * the CRC-32C of each of `groups` groups. A range whose source is its destination (same bytes)
 * is only checksummed. Argument errors throw here; nothing is copied then.
 */
export function copyBlocks(ranges: readonly CopyRange[], groups = 0): Promise<Uint32Array> {
  if (!Number.isInteger(groups) || groups < 0) throw new RangeError(`groups must be a non-negative integer, got ${groups}`);
  const table = new Float64Array(ranges.length * ROW);
  const buffers: Uint8Array[] = [];
  const index = new Map<ArrayBufferLike, number>();
  // One whole-buffer view per ArrayBuffer; offsets are translated to it.
  const bufferOf = (view: Uint8Array) => {
    let i = index.get(view.buffer);
    if (i === undefined) {
      index.set(view.buffer, (i = buffers.length));
      buffers.push(new Uint8Array(view.buffer));
    }
    return i;
  };
  ranges.forEach((r, n) => {
    checkRange('from', r.from, r.fromOffset, r.length);
    checkRange('to', r.to, r.toOffset, r.length);
    const at = n * ROW;
    table[at] = bufferOf(r.from);
    table[at + 1] = r.from.byteOffset + r.fromOffset;
    table[at + 2] = bufferOf(r.to);
    table[at + 3] = r.to.byteOffset + r.toOffset;
    table[at + 4] = r.length;
    if (r.flag) {
      checkRange('flag', r.flag.bytes, r.flag.at, 1);
      table[at + 5] = bufferOf(r.flag.bytes);
      table[at + 6] = r.flag.bytes.byteOffset + r.flag.at;
      table[at + 7] = r.flag.value;
    } else {
      table[at + 5] = -1;
    }
    const g = r.group ?? -1;
    if (!Number.isInteger(g) || g < -1 || g >= groups) throw new RangeError(`group must be an integer below ${groups}, got ${g}`);
    table[at + 8] = g;
  });
  return raw().copyBlocks(table, ranges.length, buffers, groups);
}

/** CRC-32C (Castagnoli) of `bytes`, continuing from `seed` (a previous result). */
export function crc32c(bytes: Uint8Array, seed = 0): number {
  return raw().crc32c(bytes, seed);
}

/** Whether CRC-32C runs on the CPU's crc32 instruction (else a table: same values, slower). */
export function crc32cHardware(): boolean {
  return raw().crc32cHardware();
}

/**
 * Fills in the page tables of `bytes` (a mapping) on a libuv pool thread, so later copies into
 * it take no page fault per 4 KiB; the bytes are left as they are (an atomic no-op write per
 * page, one fault at a time: never the process's mmap lock for the whole range, which would stall
 * the JS thread's mmap and munmap, and V8's GC with them, until it ends). The mapping must stay
 * backed (a memfd sealed against shrinking). Resolves with the method used. The mapping stays
 * mapped until it settles.
 *
 * @example
 * await populatePages(new Uint8Array(mapShared(fd, size)));
 */
export function populatePages(bytes: Uint8Array): Promise<'touch'> {
  if (!(bytes instanceof Uint8Array)) throw new TypeError('bytes must be a Uint8Array');
  return raw().populatePages(bytes);
}
