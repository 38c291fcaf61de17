/**
 * An engine's registered pages on the CPU path: an owner-only shared-memory file (under
 * /dev/shm or another tmpfs) that the engine maps and the Manager opens by path. The Manager
 * refuses a file another uid owns or that group/others may open, so no other user's process
 * can place bytes in the cache or read them out. Page bytes move with positioned reads and
 * writes on the file (the engine sees them through its mapping); one completion-flag byte per
 * page is set after a restore's bytes into that page have landed.
 */
import { closeSync, fstatSync, openSync, read, write, constants } from 'node:fs';
import type { RegisterPagesRequest } from '../protocol/index.js';

export type PageProblem = 'open-failed' | 'not-owner' | 'not-owner-only' | 'not-regular' | 'too-small' | 'page-size';

export class PageFile {
  private constructor(readonly fd: number, readonly spec: RegisterPagesRequest) {}

  /** Opens and checks a registration; a problem names why it is refused. */
  static open(spec: RegisterPagesRequest, blockBytes: number): PageFile | { problem: PageProblem; detail: string } {
    if (spec.pageBytes !== blockBytes) return { problem: 'page-size', detail: `pages are ${spec.pageBytes} bytes; this Manager stores ${blockBytes}-byte blocks` };
    let fd: number;
    try {
      fd = openSync(spec.path, constants.O_RDWR | constants.O_NOFOLLOW);
    } catch (error) {
      return { problem: 'open-failed', detail: (error as NodeJS.ErrnoException).code ?? 'EIO' };
    }
    const st = fstatSync(fd);
    const refuse = (problem: PageProblem, detail: string) => {
      closeSync(fd);
      return { problem, detail };
    };
    if (!st.isFile()) return refuse('not-regular', 'not a regular file');
    if (typeof process.getuid === 'function' && st.uid !== process.getuid()) return refuse('not-owner', `owned by uid ${st.uid}`);
    if ((st.mode & 0o077) !== 0) return refuse('not-owner-only', `mode ${(st.mode & 0o777).toString(8)}`);
    const dataEnd = spec.pageBytes * spec.pages;
    if (spec.flagsOffset < dataEnd || st.size < spec.flagsOffset + spec.pages) return refuse('too-small', `size ${st.size}; needs ${dataEnd} page bytes then ${spec.pages} flag bytes at ${spec.flagsOffset}`);
    return new PageFile(fd, spec);
  }

  get pages(): number {
    return this.spec.pages;
  }

  /** Copies page `index` into `into` (pages → DRAM). */
  readPage(index: number, into: Buffer): Promise<void> {
    return this.io('read', into, index * this.spec.pageBytes);
  }

  /** Copies `from` into page `index` (DRAM → pages). */
  writePage(index: number, from: Buffer): Promise<void> {
    return this.io('write', from, index * this.spec.pageBytes);
  }

  /** Sets (1) or clears (0) the page's completion flag. */
  setFlag(index: number, value: 0 | 1): Promise<void> {
    return this.io('write', Buffer.from([value]), this.spec.flagsOffset + index);
  }

  close(): void {
    closeSync(this.fd);
  }

  private io(kind: 'read' | 'write', buffer: Buffer, position: number): Promise<void> {
    const op = (offset: number, length: number, at: number, cb: (error: NodeJS.ErrnoException | null, n: number) => void) =>
      kind === 'read' ? read(this.fd, buffer, offset, length, at, cb) : write(this.fd, buffer, offset, length, at, cb);
    return new Promise((resolve, reject) => {
      const step = (done: number) => {
        if (done === buffer.length) return resolve();
        op(done, buffer.length - done, position + done, (error, n) => {
          if (error) return reject(error);
          if (n === 0) return reject(Object.assign(new Error(`${kind} of page file at ${position + done}: no progress`), { code: 'EIO' }));
          step(done + n);
        });
      };
      step(0);
    });
  }
}
