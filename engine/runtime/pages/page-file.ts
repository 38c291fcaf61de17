/**
 * An engine's registered pages on the CPU path: a memfd the engine created, sealed against
 * shrinking and growing (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) and sent over SCM_RIGHTS,
 * mapped here with `mapShared(..., { requireSealed: true })`. Sealed, it cannot be truncated
 * under the mapping, so no copy can take SIGBUS and no size check is needed before a copy.
 *
 * Layout (layer-major, as engines hold one KV tensor per layer):
 *   data:  layers x pages x pageBytes; page i of layer l at (l * pages + i) * pageBytes
 *   flags: layers x pages bytes after the data; flag (l, i) at dataBytes + l * pages + i
 * A cache block is one page across every layer (layers x pageBytes = the Manager's block size).
 * A restore writes a page's layers in order and sets each layer's flag to LANDED right after
 * that layer's bytes (stores are not reordered past each other on the CPUs we run on), or every
 * layer's flag to FAILED when the block cannot be served: the engine waits per layer and
 * recomputes failed blocks. The engine clears the flags of a restore's pages before asking.
 */
import { closeSync, fstatSync, readlinkSync } from 'node:fs';
import { mapShared, populatePages, unmapShared, type CopyRange } from '../../../native/index.js';
import { faultPoint } from '../faults/index.js';
import type { RegisterPagesRequest } from '../protocol/index.js';
import { CopyBatcher } from './copy-batch.js';

export type PageProblem = 'no-fd' | 'not-memfd' | 'not-sealed' | 'too-small' | 'page-size' | 'map-failed';

/** Flag values (one byte per page per layer). */
export const FLAG = { pending: 0, landed: 1, failed: 2 } as const;
export type FlagValue = (typeof FLAG)[keyof typeof FLAG];

/** Bytes a registration's memfd must hold: the pages of every layer, then their flags. */
export const registrationBytes = (spec: Pick<RegisterPagesRequest, 'pageBytes' | 'pages' | 'layers'>): number => spec.layers * spec.pages * (spec.pageBytes + 1);

export class PageFile {
  private readonly view: Buffer;
  private readonly dataBytes: number;
  /** The copies into and out of these pages, run natively in batches off the JS thread. */
  private readonly copies = new CopyBatcher();
  /**
   * Settles once the mapping's page tables are filled in (off the JS thread, bytes unchanged),
   * so restores copy into it without a page fault per 4 KiB; true when they were, false where
   * it could not run (the file closed first: copies then fault pages in as they go). Never
   * rejects. The registration is answered before it: populating takes ~0.6 s per GiB, and a
   * large registration waited for would outlast the client's timeout; a copy into a page not
   * yet populated only takes its fault, and the populate's no-op writes leave the bytes of
   * concurrent copies as they are.
   */
  readonly ready: Promise<boolean>;

  private constructor(private readonly mapping: ArrayBuffer, readonly spec: RegisterPagesRequest) {
    this.view = Buffer.from(mapping);
    this.dataBytes = spec.layers * spec.pages * spec.pageBytes;
    const hold = faultPoint('pages-populate-hold-ms');
    this.ready = (hold ? hold.then(() => populatePages(this.view)) : populatePages(this.view)).then(() => true, () => false);
  }

  /**
   * Checks and maps a registration's memfd (taking ownership of `fd`: it is closed either way);
   * a problem names why it is refused.
   */
  static open(fd: number | null, spec: RegisterPagesRequest, blockBytes: number): PageFile | { problem: PageProblem; detail: string } {
    if (fd === null) return { problem: 'no-fd', detail: 'no memfd was deposited on the fd socket for this session' };
    try {
      if (spec.pageBytes * spec.layers !== blockBytes) return { problem: 'page-size', detail: `${spec.layers} layers of ${spec.pageBytes}-byte pages make ${spec.pageBytes * spec.layers}-byte blocks; this Manager stores ${blockBytes}-byte blocks` };
      let link: string;
      try {
        link = readlinkSync(`/proc/self/fd/${fd}`);
      } catch (error) {
        return { problem: 'not-memfd', detail: (error as NodeJS.ErrnoException).code ?? String(error) };
      }
      const st = fstatSync(fd);
      if (!st.isFile() || !link.startsWith('/memfd:')) return { problem: 'not-memfd', detail: `the fd is ${link}` };
      const size = registrationBytes(spec);
      if (st.size < size) return { problem: 'too-small', detail: `size ${st.size}; needs ${spec.layers} x ${spec.pages} pages of ${spec.pageBytes} bytes then ${spec.layers * spec.pages} flag bytes (${size})` };
      try {
        return new PageFile(mapShared(fd, size, { requireSealed: true }), spec);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EPERM') return { problem: 'not-sealed', detail: 'the memfd is not sealed against shrinking (F_SEAL_SHRINK); its owner could truncate it under the mapping' };
        return { problem: 'map-failed', detail: code ?? String(error) };
      }
    } finally {
      // The mapping outlives the fd.
      closeSync(fd);
    }
  }

  get pages(): number {
    return this.spec.pages;
  }

  get layers(): number {
    return this.spec.layers;
  }

  private at(layer: number, index: number): number {
    return (layer * this.spec.pages + index) * this.spec.pageBytes;
  }

  private flagAt(layer: number, index: number): number {
    return this.dataBytes + layer * this.spec.pages + index;
  }

  /**
   * Gathers page `index` of every layer into `into` (pages → DRAM block) off the JS thread;
   * resolves with the CRC-32C of the block's bytes as written into `into` (same pass as the copy).
   */
  readPage(index: number, into: Buffer): Promise<number> {
    const pb = this.spec.pageBytes;
    const ranges: CopyRange[] = [];
    for (let l = 0; l < this.spec.layers; l++) ranges.push({ from: this.view, fromOffset: this.at(l, index), to: into, toOffset: l * pb, length: pb });
    return this.copies.copy(ranges, true);
  }

  /**
   * Scatters `from` into page `index` of every layer off the JS thread, each layer's flag set
   * LANDED after its bytes (a release store: an engine that sees the flag sees the bytes).
   */
  writePage(index: number, from: Buffer): Promise<void> {
    return this.writePages([index], [from]);
  }

  /**
   * Scatters `from[k]` into page `indices[k]` for every k, as `writePage` does each, in one
   * request to the batcher (one promise, one native call for a restore's window instead of one
   * per block): blocks land in order, each layer's flag set LANDED right after its bytes.
   */
  writePages(indices: readonly number[], from: readonly Buffer[]): Promise<void> {
    if (indices.length !== from.length) throw new RangeError(`${indices.length} pages for ${from.length} blocks`);
    const pb = this.spec.pageBytes;
    const ranges: CopyRange[] = [];
    for (let k = 0; k < indices.length; k++) {
      const index = indices[k]!;
      for (let l = 0; l < this.spec.layers; l++) ranges.push({ from: from[k]!, fromOffset: l * pb, to: this.view, toOffset: this.at(l, index), length: pb, flag: { bytes: this.view, at: this.flagAt(l, index), value: FLAG.landed } });
    }
    return this.copies.copy(ranges, false).then(() => undefined);
  }

  /**
   * Sets the page's flag in every layer (PENDING to clear, FAILED when its block cannot be
   * restored), now: a byte store per layer, nothing to wait for (no promise per page).
   */
  setFlag(index: number, value: FlagValue): void {
    for (let l = 0; l < this.spec.layers; l++) this.view[this.flagAt(l, index)] = value;
  }

  /** Unmaps the pages (call only once no copy into them can still run: the session drains first). */
  close(): void {
    unmapShared(this.mapping);
  }
}
