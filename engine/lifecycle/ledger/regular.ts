import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { type Diagnostic, diagnose } from '../../diagnostics/index.js';

/** What opening a ledger file found: a descriptor of a regular file, nothing there, or why it is refused. */
export type Opened = { fd: number; size: number } | { missing: true } | { refused: Diagnostic };

/**
 * Opens a file the ledger owns for reading, refusing anything but a regular file. Opened
 * non-blocking, so a FIFO put in its place answers at once instead of waiting for a writer, and
 * checked on the descriptor (not the name), so a swap after the check cannot slip a device in.
 */
export function openRegular(file: string): Opened {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { missing: true };
    if (code === 'ENXIO' || code === 'EISDIR') return { refused: diagnose('ledgerNotRegular', { file }, file) };
    throw error;
  }
  const stat = fstatSync(fd);
  if (!stat.isFile()) {
    closeSync(fd);
    return { refused: diagnose('ledgerNotRegular', { file }, file) };
  }
  return { fd, size: stat.size };
}

/** A small regular file's text (the head, the trusted signers), at most `limit` bytes; see `openRegular`. */
export function readRegularText(file: string, limit: number): { text: string } | { missing: true } | { refused: Diagnostic } {
  const opened = openRegular(file);
  if (!('fd' in opened)) return opened;
  try {
    if (opened.size > limit) return { refused: diagnose('ledgerTooLarge', { file }, file, limit) };
    const buffer = Buffer.alloc(opened.size);
    let filled = 0;
    while (filled < buffer.length) {
      const n = readSync(opened.fd, buffer, filled, buffer.length - filled, filled);
      if (n === 0) break;
      filled += n;
    }
    return { text: buffer.toString('utf8', 0, filled) };
  } finally {
    closeSync(opened.fd);
  }
}
