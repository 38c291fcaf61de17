/**
 * Block copies between pages and DRAM slots, gathered per turn of the event loop into native
 * batches (`copyBlocks`: a pool thread copies and checksums, the JS thread keeps serving I/O
 * completions meanwhile). One native call and one promise per batch of at most `blocksPerCall`
 * blocks, not per block; what is gathered is flushed in the same turn, so nothing accumulates.
 */
import { copyBlocks, type CopyRange } from '../../../native/index.js';

interface Request {
  ranges: CopyRange[];
  checksum: boolean;
  resolve: (crc: number) => void;
  reject: (error: unknown) => void;
}

export class CopyBatcher {
  private gathered: Request[] = [];

  constructor(private readonly blocksPerCall = 16) {}

  /**
   * Copies one block's ranges (in order); resolves once they are all in place (and each
   * range's flag set), with the CRC-32C of the bytes written when `checksum`, else 0.
   */
  copy(ranges: CopyRange[], checksum: boolean): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      if (this.gathered.length === 0) queueMicrotask(() => this.flush());
      this.gathered.push({ ranges, checksum, resolve, reject });
    });
  }

  /** The CRC-32C of `bytes`, computed off the JS thread in the same batches (nothing copied). */
  checksum(bytes: Uint8Array): Promise<number> {
    return this.copy([{ from: bytes, fromOffset: 0, to: bytes, toOffset: 0, length: bytes.byteLength }], true);
  }

  private flush(): void {
    const all = this.gathered;
    this.gathered = [];
    for (let at = 0; at < all.length; at += this.blocksPerCall) {
      const batch = all.slice(at, at + this.blocksPerCall);
      const ranges: CopyRange[] = [];
      batch.forEach((r, group) => {
        for (const range of r.ranges) ranges.push(r.checksum ? { ...range, group } : range);
      });
      let done: Promise<Uint32Array>;
      try {
        done = copyBlocks(ranges, batch.length);
      } catch (error) {
        for (const r of batch) r.reject(error);
        continue;
      }
      done.then(
        (crcs) => batch.forEach((r, i) => r.resolve(r.checksum ? crcs[i]! : 0)),
        (error: unknown) => batch.forEach((r) => r.reject(error)),
      );
    }
  }
}
