/** Aligned native memory exposed as Buffers (freed by their finalizer). */
import { binding } from './binding.js';
import { DIRECT_ALIGNMENT } from './direct-file.js';

/** A zero-filled Buffer of `size` bytes whose address is a multiple of `alignment`. */
export function allocAligned(size: number, alignment = DIRECT_ALIGNMENT): Buffer {
  if (!Number.isSafeInteger(size) || size < 0) throw new RangeError(`size must be a non-negative integer, got ${size}`);
  if (!Number.isInteger(alignment) || alignment < 8 || (alignment & (alignment - 1)) !== 0) throw new RangeError(`alignment must be a power of two >= 8, got ${alignment}`);
  return binding().allocAligned(size, alignment);
}

export function bufferAddress(buffer: Uint8Array): bigint {
  return binding().bufferAddress(buffer);
}

/** Native op records alive across all rings (specs assert it returns to zero). */
export function liveNativeOps(): number {
  return binding().liveOps();
}

/**
 * Adds `delta` bytes (negative: takes them away) to what V8 counts as memory held outside its heap
 * for this isolate, and returns the count after (napi_adjust_external_memory). V8 weighs that count
 * in its collection heuristics: for memory that lives as long as the process and that no collection
 * can free, such as the Manager's DRAM arena, the count only misleads it.
 */
export function adjustExternalMemory(delta: number): number {
  if (!Number.isSafeInteger(delta)) throw new RangeError(`delta must be a safe integer, got ${delta}`);
  return binding().adjustExternalMemory(delta);
}
