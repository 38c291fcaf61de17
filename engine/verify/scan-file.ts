import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type { Parser } from 'web-tree-sitter';
import { extractTable } from './extract.js';
import type { FileScan } from './table.js';

/** Files above this size are reported and skipped: no engine source file is this large, a generated blob may be. */
export const DEFAULT_MAX_FILE_BYTES = 5 * 1024 * 1024;

export interface ScanOptions {
  maxFileBytes: number;
  /** Literals to look for inside string literals (env vars, CLI flags, entry-point groups). */
  needles: readonly string[];
  /** Names of the functions whose bodies (calls, literals) are read: the ones assertions scope. */
  bodies: readonly string[];
}

function readCapped(path: string, max: number): { bytes: Buffer } | { size: number } {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    if (size > max) return { size };
    const bytes = Buffer.allocUnsafe(size);
    let done = 0;
    while (done < size) {
      const n = readSync(fd, bytes, done, size - done, done);
      if (n === 0) break;
      done += n;
    }
    return { bytes: bytes.subarray(0, done) };
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads one file once, hashes exactly those bytes and parses them. Binary files (a NUL byte)
 * and files over the cap are reported, not parsed; a file that does not parse still yields
 * every definition the parser recovered, with the error positions.
 */
export function scanFile(parser: Parser, absolute: string, file: string, options: ScanOptions, bodies: ReadonlySet<string> = new Set(options.bodies)): FileScan {
  const empty = { file, syntaxErrors: [], errorOffsets: [], definitions: [], needles: [], flags: [] };
  let read;
  try {
    read = readCapped(absolute, options.maxFileBytes);
  } catch (error) {
    return { ...empty, status: 'unreadable', bytes: 0, reason: (error as NodeJS.ErrnoException).code ?? (error as Error).message };
  }
  if ('size' in read) return { ...empty, status: 'too-large', bytes: read.size };
  const { bytes } = read;
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  if (bytes.includes(0)) return { ...empty, status: 'binary', bytes: bytes.length, sha256 };
  const text = bytes.toString('utf8');
  const tree = parser.parse(text);
  if (!tree) throw new Error(`tree-sitter returned no tree for ${file}`);
  try {
    return { file, status: 'parsed', bytes: bytes.length, sha256, ...extractTable(tree, text, options.needles, bodies) };
  } finally {
    tree.delete();
  }
}
