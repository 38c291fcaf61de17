/**
 * An engine's registered pages on the CPU path: an owner-only shared-memory file (under
 * /dev/shm or another tmpfs) that the engine maps and the Manager maps too (native
 * `openSharedFile` + `mapShared`). The Manager refuses a file another uid owns, one that
 * group/others may open, a symlink or a non-regular file, so no other user's process can place
 * bytes in the cache or read them out. Page bytes move by memcpy between a DRAM slot and the
 * mapping; one completion-flag byte per page is set after a restore's bytes into that page
 * have been copied (stores are not reordered past each other on the CPUs we run on, and the
 * restore's reply follows).
 */
import { closeSync, constants, fstatSync, openSync } from 'node:fs';
import { mapShared, openSharedFile, unmapShared } from '../../../native/index.js';
import type { RegisterPagesRequest } from '../protocol/index.js';

export type PageProblem = 'open-failed' | 'not-owner' | 'not-owner-only' | 'not-regular' | 'too-small' | 'page-size' | 'map-failed';

export class PageFile {
  private readonly view: Buffer;

  private constructor(private readonly mapping: ArrayBuffer, readonly spec: RegisterPagesRequest, private readonly fd: number) {
    this.view = Buffer.from(mapping);
  }

  /** Opens, checks and maps a registration; a problem names why it is refused. */
  static open(spec: RegisterPagesRequest, blockBytes: number): PageFile | { problem: PageProblem; detail: string } {
    if (spec.pageBytes !== blockBytes) return { problem: 'page-size', detail: `pages are ${spec.pageBytes} bytes; this Manager stores ${blockBytes}-byte blocks` };
    // Checked here first for a precise reason; the native open checks the same again on its fd.
    let probe: number;
    try {
      probe = openSync(spec.path, constants.O_RDONLY | constants.O_NOFOLLOW);
    } catch (error) {
      return { problem: 'open-failed', detail: (error as NodeJS.ErrnoException).code ?? 'EIO' };
    }
    const st = fstatSync(probe);
    closeSync(probe);
    if (!st.isFile()) return { problem: 'not-regular', detail: 'not a regular file' };
    if (typeof process.getuid === 'function' && st.uid !== process.getuid()) return { problem: 'not-owner', detail: `owned by uid ${st.uid}` };
    if ((st.mode & 0o077) !== 0) return { problem: 'not-owner-only', detail: `mode ${(st.mode & 0o777).toString(8)}` };
    const dataEnd = spec.pageBytes * spec.pages;
    const size = spec.flagsOffset + spec.pages;
    if (spec.flagsOffset < dataEnd || st.size < size) return { problem: 'too-small', detail: `size ${st.size}; needs ${dataEnd} page bytes then ${spec.pages} flag bytes at ${spec.flagsOffset}` };
    let fd: number;
    try {
      fd = openSharedFile(spec.path, size);
    } catch (error) {
      return { problem: 'open-failed', detail: (error as NodeJS.ErrnoException).code ?? String(error) };
    }
    try {
      // The fd stays open: every copy first checks the file still covers it (see `covers`).
      return new PageFile(mapShared(fd, size), spec, fd);
    } catch (error) {
      closeSync(fd);
      return { problem: 'map-failed', detail: (error as NodeJS.ErrnoException).code ?? String(error) };
    }
  }

  get pages(): number {
    return this.spec.pages;
  }

  /**
   * Whether the file still holds bytes up to `end`: the engine may have truncated it, and a
   * copy past its end would take SIGBUS. This narrows that to a truncation racing the copy
   * itself (a sealed memfd over SCM_RIGHTS closes it; the clients do not send one yet).
   */
  private covers(end: number): Promise<void> | null {
    const size = fstatSync(this.fd).size;
    return size >= end ? null : Promise.reject(Object.assign(new Error(`the page file is ${size} bytes now, short of ${end}`), { code: 'EPAGESHRUNK' }));
  }

  /** Copies page `index` into `into` (pages → DRAM). */
  readPage(index: number, into: Buffer): Promise<void> {
    const at = index * this.spec.pageBytes;
    const short = this.covers(at + this.spec.pageBytes);
    if (short) return short;
    this.view.copy(into, 0, at, at + this.spec.pageBytes);
    return Promise.resolve();
  }

  /** Copies `from` into page `index` (DRAM → pages). */
  writePage(index: number, from: Buffer): Promise<void> {
    const short = this.covers((index + 1) * this.spec.pageBytes);
    if (short) return short;
    from.copy(this.view, index * this.spec.pageBytes, 0, this.spec.pageBytes);
    return Promise.resolve();
  }

  /** Sets (1) or clears (0) the page's completion flag. */
  setFlag(index: number, value: 0 | 1): Promise<void> {
    const short = this.covers(this.spec.flagsOffset + index + 1);
    if (short) return short;
    this.view[this.spec.flagsOffset + index] = value;
    return Promise.resolve();
  }

  /** Unmaps the pages (call only once no copy into them can still run: the session drains first). */
  close(): void {
    unmapShared(this.mapping);
    closeSync(this.fd);
  }
}
