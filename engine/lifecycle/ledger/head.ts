import { closeSync, fsyncSync, openSync, renameSync, writeSync } from 'node:fs';
import { type Diagnostic, diagnose } from '../../diagnostics/index.js';
import type { LedgerPosition } from './position.js';
import { readRegularText } from './regular.js';
import { GENESIS } from './canonical.js';

/**
 * The last record's seq and hash, rewritten after every append: removing records from the end
 * shows against it. `{seq: 0, hash: GENESIS}` anchors the empty ledger: the first append writes it
 * before its line, so that append, like every later one, leaves a head at most one record behind.
 */
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
  if (!Number.isSafeInteger(seq) || (seq as number) < 0) return { diagnostics: [diagnose('headUnreadable', { file }, 'seq is not a non-negative integer')] };
  if (typeof hash !== 'string' || !HEX64.test(hash)) return { diagnostics: [diagnose('headUnreadable', { file }, 'hash is not 64 hex digits')] };
  if (seq === 0 && hash !== GENESIS) return { diagnostics: [diagnose('headUnreadable', { file }, 'seq 0 anchors the empty ledger, whose hash is the genesis hash')] };
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
 * Checks a cleanly read ledger against its head: one pure function of the head and the position
 * after the ledger's last record, which the cold scan and the warm one (resumed from a snapshot
 * whose prefix it re-hashed) both reach, so they cannot disagree. `present`: the ledger file
 * exists (a missing one is the empty ledger, `end` at its start).
 *
 * Every append first makes the head name the end it scanned (the genesis head on an empty
 * ledger), then writes and fsyncs its line, then moves the head onto it: a kill -9 anywhere leaves
 * the head on the last record or on the one before it, never further back, and never absent under
 * a record. So the head is checked against `end.hash` or `end.prev` only: a missing head under any
 * record, a head past the end, more than one record behind it, or naming another hash are refused.
 */
export function checkHead(file: string, ledger: string, head: LedgerHead | undefined, present: boolean, end: LedgerPosition): Diagnostic[] {
  if (!head) return end.seq > 0 ? [diagnose('headMissing', { file }, end.seq)] : [];
  if (!present && head.seq > 0) return [diagnose('ledgerMissing', { file: ledger }, head.seq)];
  if (head.seq > end.seq) return [diagnose('ledgerTruncated', { file: ledger }, end.seq, head.seq)];
  if (head.seq < end.seq - 1) return [diagnose('headBehind', { file }, head.seq, end.seq)];
  const found = head.seq === end.seq ? end.hash : end.prev;
  if (found !== head.hash) return [diagnose('headMismatch', { file }, head.seq, found ?? 'unknown', head.hash)];
  return [];
}
