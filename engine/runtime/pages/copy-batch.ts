/**
 * Block copies between pages and DRAM slots, gathered per turn of the event loop into native
 * batches (`copyBlocks`: a pool thread copies and checksums, the JS thread keeps serving I/O
 * completions meanwhile). One native call and one promise per batch of at most `blocksPerCall`
 * requests and `bytesPerCall` bytes (a larger request goes alone), not per block; what is
 * gathered is handed on in the same turn, and batches beyond the calls running wait only for
 * them (no more than the callers' windows ever hold). A request is one block (a save's gather)
 * or a restore's whole window (`PageFile.writePages`): the byte bound keeps several windows
 * gathered in one turn spread over the concurrent calls instead of one call holding them all.
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

  /** Native calls running, and the batches waiting for one of them to finish. */
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  /**
   * At most `concurrency` native calls at once for this batcher (default 2 of libuv's 4 pool
   * threads; a page file and the SSD tier's checksums each have one), so the index's fdatasyncs
   * and other fs work on the pool are not all queued behind a window of copies.
   */
  constructor(private readonly blocksPerCall = 16, private readonly concurrency = 2, private readonly bytesPerCall = 4 * 1024 * 1024, private readonly native: typeof copyBlocks = copyBlocks) {}

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

  private next(): void {
    if (this.running < this.concurrency) this.waiting.shift()?.();
  }

  /** The CRC-32C of `bytes`, computed off the JS thread in the same batches (nothing copied). */
  checksum(bytes: Uint8Array): Promise<number> {
    return this.copy([{ from: bytes, fromOffset: 0, to: bytes, toOffset: 0, length: bytes.byteLength }], true);
  }

  private flush(): void {
    const all = this.gathered;
    this.gathered = [];
    for (let at = 0; at < all.length; ) {
      let end = at;
      let bytes = 0;
      while (end < all.length && end - at < this.blocksPerCall) {
        const size = all[end]!.ranges.reduce((n, r) => n + r.length, 0);
        if (end > at && bytes + size > this.bytesPerCall) break;
        bytes += size;
        end++;
      }
      const batch = all.slice(at, end);
      at = end;
      const ranges: CopyRange[] = [];
      batch.forEach((r, group) => {
        for (const range of r.ranges) ranges.push(r.checksum ? { ...range, group } : range);
      });
      const run = () => {
        let done: Promise<Uint32Array>;
        try {
          done = this.native(ranges, batch.length);
        } catch (error) {
          for (const r of batch) r.reject(error);
          this.next();
          return;
        }
        this.running++;
        done.then(
          (crcs) => batch.forEach((r, i) => r.resolve(r.checksum ? crcs[i]! : 0)),
          (error: unknown) => batch.forEach((r) => r.reject(error)),
        ).finally(() => {
          this.running--;
          this.next();
        });
      };
      if (this.running < this.concurrency) run();
      else this.waiting.push(run);
    }
  }
}
