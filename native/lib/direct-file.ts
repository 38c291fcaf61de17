/**
 * Files opened for direct I/O. `direct: 'auto'` falls back to buffered I/O where the file
 * system refuses O_DIRECT, and says so in `file.direct`.
 */
import { closeSync, constants, openSync } from 'node:fs';
import { DirectIoUnavailableError, IoError } from './errors.js';

export interface OpenOptions {
  /** Create the file when missing (default false). */
  create?: boolean;
  /** Open for writing too (default: true when `create`). */
  write?: boolean;
  /** true (default): O_DIRECT or fail; 'auto': O_DIRECT where allowed; false: buffered. */
  direct?: boolean | 'auto';
}

export interface DirectFile {
  readonly fd: number;
  readonly path: string;
  /** Whether the file is open with O_DIRECT. */
  readonly direct: boolean;
  close(): void;
}

/** Alignment O_DIRECT needs for buffers, offsets and lengths on the file systems we target. */
export const DIRECT_ALIGNMENT = 4096;

export function openFile(path: string, options: OpenOptions = {}): DirectFile {
  const write = options.write ?? Boolean(options.create);
  const want = options.direct ?? true;
  let flags = (write ? constants.O_RDWR : constants.O_RDONLY) | (options.create ? constants.O_CREAT : 0);
  const tryOpen = (direct: boolean): number => {
    try {
      return openSync(path, flags | (direct ? constants.O_DIRECT : 0), 0o600);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'EIO';
      if (direct && code === 'EINVAL') throw new DirectIoUnavailableError(path);
      throw new IoError(code, 'open', path, 0, 0);
    }
  };
  let direct = want !== false;
  let fd: number;
  try {
    fd = tryOpen(direct);
  } catch (error) {
    if (!(error instanceof DirectIoUnavailableError) || want !== 'auto') throw error;
    direct = false;
    fd = tryOpen(false);
  }
  let open = true;
  return {
    fd,
    path,
    direct,
    close() {
      if (open) closeSync(fd);
      open = false;
    },
  };
}
