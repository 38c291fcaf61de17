import * as crypto from 'node:crypto';
import type { EvidenceRecord } from '../../model/index.js';
import { type Diagnostic, diagnose } from '../../diagnostics/index.js';
import { HASH_SUFFIX_LENGTH, canonicalJson } from './canonical.js';
import { type LedgerPosition, type LedgerRead, LEDGER_START } from './position.js';
import { isCalendarTimestamp } from './time.js';

/**
 * Reads `length` bytes at `position` of the ledger into `buffer` at `offset`; returns how many
 * it read (0 at the end). A file descriptor's `readSync`, or a copy out of an in-memory buffer.
 */
export type LedgerSource = (buffer: Buffer, offset: number, length: number, position: number) => number;

export interface ScanOptions {
  /** The ledger file name diagnostics point at. */
  file?: string;
  /** Also require canonical form (slower; `evidence verify` does it). */
  canonical?: boolean;
  /** Continue after this position (the source's bytes count from the ledger's start). */
  from?: LedgerPosition;
  /** Leave the line hashes unchecked: another thread checks them (`startHashCheck`). */
  skipHashes?: boolean;
  /** A further check of each record that passed the chain checks (signatures): a diagnostic stops the scan there. */
  vet?: (record: EvidenceRecord, line: number) => Diagnostic | undefined;
  /** Fed each good line's bytes, newline included. */
  digest?: { update(bytes: Uint8Array): unknown };
}

/** What a scan found: the records are handed to the caller one by one, not kept. */
export type LedgerScan = Omit<LedgerRead, 'records'> & { count: number };

const CHUNK = 1 << 20;
const NEWLINE = 0x0a;
const CLOSE_BRACE = 0x7d;
const HASH_KEY = ',"hash":"';
const HEX64 = /^[0-9a-f]{64}$/;

// One-shot `crypto.hash` (Node >= 20.12) hashes bytes without a Hash object per line.
const oneShot = (crypto as { hash?: (algorithm: string, data: Uint8Array, encoding: 'hex') => string }).hash;
const sha256Bytes = (bytes: Uint8Array): string => (oneShot ? oneShot('sha256', bytes, 'hex') : crypto.createHash('sha256').update(bytes).digest('hex'));

/**
 * Reads ledger lines from a byte source and checks the chain: each line's hash matches its
 * content, `prev` is the previous hash, `seq` counts up by one, time never goes backwards. Each
 * good record goes to `onRecord` as soon as it is checked; the scan stops at the first bad line
 * and names it; an unterminated last line is reported as torn.
 *
 * The ledger is read in chunks through one reused buffer and each line is decoded on its own:
 * neither the file nor its text is ever held whole, so a ledger of any size streams in bounded
 * memory. A line's hash is taken over its bytes, the `"hash"` key cut off (a sealed line is the
 * canonical body with the hash appended as its last key).
 */
export function scanLedger(source: LedgerSource, options: ScanOptions, onRecord: (record: EvidenceRecord) => void): LedgerScan {
  const from = options.from ?? LEDGER_START;
  const file = options.file;
  // The position after the last good record, kept in locals: one object per line would be garbage.
  let seq = from.seq;
  let hash = from.hash;
  let at = from.at;
  let lastLine = from.line;
  let before = from.prev;
  let bytes = from.offset;
  // The last good record's time, parsed once: each line's time is parsed once, then carried.
  let time = at !== '' ? Date.parse(at) : NaN;
  let count = 0;
  const position = (): LedgerPosition => ({ seq, hash, at, offset: bytes, line: lastLine, ...(before !== undefined ? { prev: before } : {}) });
  const site = (line: number) => ({ ...(file !== undefined ? { file } : {}), range: { line, col: 1, endLine: line, endCol: 1 } });
  let buffer = Buffer.allocUnsafe(CHUNK);
  /** Bytes of `buffer` holding unread ledger, from index 0; they start at ledger offset `bytes`. */
  let filled = 0;
  /** Where the next newline search starts: the bytes before it are known to hold none. */
  let searched = 0;
  /** The end of the good lines in `buffer`: they run from index 0 to here. */
  let cursor = 0;
  // The good lines go to the digest a buffer at a time (one call per chunk, not per line): the same bytes in the same order.
  const digest = options.digest;
  const digestGood = () => {
    if (digest && cursor > 0) digest.update(buffer.subarray(0, cursor));
  };
  const fail = (d: Diagnostic): LedgerScan => {
    digestGood();
    return { count, diagnostics: [d], end: position() };
  };
  for (;;) {
    const n = source(buffer, filled, buffer.length - filled, bytes + filled);
    filled += n;
    const view = buffer.subarray(0, filled);
    cursor = 0;
    for (;;) {
      const nl = view.indexOf(NEWLINE, Math.max(cursor, searched));
      if (nl < 0) break;
      const lineNo = lastLine + 1;
      const length = nl - cursor;
      // The sealed suffix `,"hash":"<64 hex>"}`, read as bytes: the body is what precedes it, closed.
      const cut = nl - HASH_SUFFIX_LENGTH;
      const carried = length >= HASH_SUFFIX_LENGTH + 2 && buffer[nl - 1] === CLOSE_BRACE && hasHashKey(buffer, cut) ? buffer.toString('latin1', nl - 66, nl - 2) : undefined;
      let record: EvidenceRecord | undefined;
      if (carried !== undefined) {
        try {
          record = JSON.parse(buffer.toString('utf8', cursor, nl)) as EvidenceRecord;
        } catch {
          record = undefined;
        }
      }
      if (!record || typeof record !== 'object') return fail(diagnose('ledgerUnparsable', site(lineNo), lineNo));
      const saved = buffer[cut]!;
      buffer[cut] = CLOSE_BRACE;
      const body = buffer.subarray(cursor, cut + 1);
      const actual = options.skipHashes ? carried : sha256Bytes(body);
      // The body as text, for the canonical-form check below (`evidence verify`), taken before the byte is put back.
      const bodyText = options.canonical ? body.toString('utf8') : undefined;
      buffer[cut] = saved;
      if (actual !== carried || record.hash !== carried) {
        // A hash that is not one at all makes the line unreadable; the shape is checked only here, off the good path.
        return fail(HEX64.test(carried!) ? diagnose('ledgerHashMismatch', site(lineNo), lineNo) : diagnose('ledgerUnparsable', site(lineNo), lineNo));
      }
      if (record.prev !== hash || record.seq !== seq + 1) {
        const first = findEarlier(source, from, bytes, record.hash);
        if (first !== undefined) return fail(diagnose('ledgerDuplicate', site(lineNo), lineNo, first));
        if (record.prev !== hash) return fail(diagnose('ledgerChainBroken', site(lineNo), lineNo));
        return fail(diagnose('ledgerSequence', site(lineNo), lineNo, seq + 1, record.seq));
      }
      const shape = shapeProblem(record);
      if (shape) return fail(diagnose('ledgerInvalidRecord', site(lineNo), lineNo, shape));
      const recordTime = record.at === at ? time : Date.parse(record.at);
      if (at !== '' && recordTime < time) return fail(diagnose('ledgerTimeOrder', site(lineNo), lineNo));
      if (bodyText !== undefined && !isCanonical(record, bodyText)) return fail(diagnose('ledgerNotCanonical', site(lineNo), lineNo));
      if (options.vet) {
        const refused = options.vet(record, lineNo);
        if (refused) return fail(refused);
      }
      onRecord(record);
      count++;
      cursor = nl + 1;
      bytes += length + 1;
      seq = record.seq;
      before = record.prev;
      hash = record.hash;
      at = record.at;
      time = recordTime;
      lastLine = lineNo;
    }
    digestGood();
    // Keep the unfinished line at the front; a line longer than the buffer grows it.
    searched = filled - cursor;
    if (cursor > 0) {
      buffer.copy(buffer, 0, cursor, filled);
      filled -= cursor;
    } else if (filled === buffer.length) {
      const grown = Buffer.allocUnsafe(buffer.length * 2);
      buffer.copy(grown, 0, 0, filled);
      buffer = grown;
    }
    // The end: what is left has no newline.
    if (n === 0 && cursor === 0) break;
  }
  if (filled > 0) {
    const lineNo = lastLine + 1;
    return { count, diagnostics: [diagnose('ledgerTornLine', site(lineNo), lineNo)], end: position(), torn: { line: lineNo, offset: bytes } };
  }
  return { count, diagnostics: [], end: position() };
}

const HASH_KEY_BYTES = Buffer.from(HASH_KEY, 'latin1');

/** The bytes at `at` are `,"hash":"` (compared in place: no string per line). */
function hasHashKey(buffer: Buffer, at: number): boolean {
  for (let i = 0; i < HASH_KEY_BYTES.length; i++) if (buffer[at + i] !== HASH_KEY_BYTES[i]) return false;
  return true;
}

/**
 * The line number of an earlier record (between `from` and `before`) carrying `hash`, read from
 * the lines' sealed suffixes: a duplicated record is named with the line it repeats. Only a
 * failing scan asks, so it reads the source again rather than keep every hash.
 */
function findEarlier(source: LedgerSource, from: LedgerPosition, before: number, hash: string): number | undefined {
  const wanted = `${HASH_KEY}${hash}"}`;
  const chunk = Buffer.allocUnsafe(Math.min(CHUNK, Math.max(0, before - from.offset)));
  let line = from.line;
  let carry = '';
  for (let position = from.offset; position < before; ) {
    const n = source(chunk, 0, Math.min(chunk.length, before - position), position);
    if (n === 0) break;
    position += n;
    const lines = (carry + chunk.toString('latin1', 0, n)).split('\n');
    carry = lines.pop()!;
    for (const text of lines) {
      line++;
      if (text.endsWith(wanted)) return line;
    }
  }
  return undefined;
}

/** The body text is the record's canonical JSON (a number with no JSON form, such as 1e400, is not). */
function isCanonical(record: EvidenceRecord, bodyText: string): boolean {
  const { hash: _hash, ...fields } = record;
  try {
    return canonicalJson(fields) === bodyText;
  } catch {
    return false;
  }
}

/** Top-level fields the fold relies on; data fields are checked against the registry on append. */
function shapeProblem(r: EvidenceRecord): string | undefined {
  if (!Number.isInteger(r.seq)) return 'seq must be an integer';
  if (typeof r.at !== 'string' || !isCalendarTimestamp(r.at)) return 'at must be a UTC timestamp of a day that exists';
  if (typeof r.actor !== 'string' || r.actor === '') return 'actor must be a non-empty string';
  if (typeof r.type !== 'string' || typeof r.subject !== 'string') return 'type and subject must be strings';
  if (typeof r.data !== 'object' || r.data === null) return 'data must be an object';
  if (r.signature !== undefined && typeof r.signature !== 'string') return 'signature must be a string';
  return undefined;
}

/** A source over bytes already in memory, which start at ledger offset `base`. */
export function bufferSource(data: Buffer, base = 0): LedgerSource {
  return (buffer, offset, length, position) => {
    const start = position - base;
    return start < 0 || start >= data.length ? 0 : data.copy(buffer, offset, start, Math.min(data.length, start + length));
  };
}
