import { closeSync, fsyncSync, openSync, renameSync, writeSync } from 'node:fs';
import { type Diagnostic, diagnose } from '../../diagnostics/index.js';
import type { LedgerPosition } from './position.js';
import { readRegularText } from './regular.js';

/** The last record's seq and hash, rewritten after every append: removing records from the end shows against it. */
export interface LedgerHead {
  seq: number;
  hash: string;
}

const HEX64 = /^[0-9a-f]{64}$/;
/** A head is one short line; anything longer is not one. */
const HEAD_LIMIT = 4096;

/** The head anchor: absent (no file), present, or refused with its diagnostic (garbage, `[]`, `null`, `5`, a FIFO). */
export function readHeadFile(file: string): { head?: LedgerHead; diagnostics: Diagnostic[] } {
  const read = readRegularText(file, HEAD_LIMIT);
  if ('missing' in read) return { diagnostics: [] };
  if ('refused' in read) return { diagnostics: [read.refused] };
  let value: unknown;
  try {
    value = JSON.parse(read.text);
  } catch {
    return { diagnostics: [diagnose('headUnreadable', { file }, 'not JSON')] };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { diagnostics: [diagnose('headUnreadable', { file }, `found ${Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value}`)] };
  const { seq, hash, ...rest } = value as Record<string, unknown>;
  if (!Number.isSafeInteger(seq) || (seq as number) < 1) return { diagnostics: [diagnose('headUnreadable', { file }, 'seq is not a positive integer')] };
  if (typeof hash !== 'string' || !HEX64.test(hash)) return { diagnostics: [diagnose('headUnreadable', { file }, 'hash is not 64 hex digits')] };
  if (Object.keys(rest).length) return { diagnostics: [diagnose('headUnreadable', { file }, `unknown key '${Object.keys(rest)[0]}'`)] };
  return { head: { seq: seq as number, hash }, diagnostics: [] };
}

/** Replaces the head anchor atomically (temp file, fsync, rename). */
export function writeHeadFile(file: string, head: LedgerHead): void {
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w');
  try {
    writeSync(fd, `${JSON.stringify(head)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
}

/**
 * Checks a cleanly read ledger against its head. `present`: the ledger file exists; `end`: the
 * position after its last record; `hashAt(seq)`: the hash of the record of that seq, when the
 * scan saw it. The head may trail the ledger, naming one of its records correctly: appends killed
 * between their fsync and the head's rename leave it so (the next append moves it on). Records
 * up to the head are anchored: cutting any of them, or rewriting the one it names, shows.
 */
export function checkHead(file: string, ledger: string, head: LedgerHead | undefined, present: boolean, end: LedgerPosition, hashAt: (seq: number) => string | undefined): Diagnostic[] {
  if (!present) return head ? [diagnose('ledgerMissing', { file: ledger }, head.seq)] : [];
  if (!head) return end.seq > 0 ? [diagnose('headMissing', { file }, end.seq)] : [];
  if (head.seq > end.seq) return [diagnose('ledgerTruncated', { file: ledger }, end.seq, head.seq)];
  const found = head.seq === end.seq ? end.hash : hashAt(head.seq);
  if (found !== head.hash) return [diagnose('headMismatch', { file }, head.seq, found ?? 'unknown', head.hash)];
  return [];
}
