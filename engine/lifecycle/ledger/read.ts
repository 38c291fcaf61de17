import type { EvidenceRecord } from '../../model/index.js';
import { type Diagnostic, diagnose } from '../../diagnostics/index.js';
import { GENESIS, canonicalJson, sha256, unsealLine } from './canonical.js';

/** Where a parse starts: the beginning, or just after a record already read (the warm path). */
export interface LedgerPosition {
  /** Seq of the last record before `offset` (0 at the start). */
  seq: number;
  /** Its hash (`GENESIS` at the start). */
  hash: string;
  /** Its timestamp ('' at the start). */
  at: string;
  /** Byte offset just after its line. */
  offset: number;
  /** Its line number (0 at the start). */
  line: number;
}

export const LEDGER_START: LedgerPosition = { seq: 0, hash: GENESIS, at: '', offset: 0, line: 0 };

export interface LedgerRead {
  /** Every record before the first bad line, in order. */
  records: EvidenceRecord[];
  /** At most one error: the first bad line (later lines cannot be trusted). */
  diagnostics: Diagnostic[];
  /** The position after the last good record. */
  end: LedgerPosition;
  /** Set when the last line is incomplete (no newline): its line number and byte offset. */
  torn?: { line: number; offset: number };
}

export interface ParseOptions {
  /** The ledger file name diagnostics point at. */
  file?: string;
  /** Also require canonical form (slower; `evidence verify` does it). */
  canonical?: boolean;
  /** Continue after this position (bytes of `text` count from it). */
  from?: LedgerPosition;
}

/**
 * Reads ledger lines and checks the chain: each line's hash matches its content, `prev` is the
 * previous hash, `seq` counts up by one, time never goes backwards. Stops at the first bad line
 * and names it; an unterminated last line is reported as torn.
 */
export function parseLedger(text: string, options: ParseOptions = {}): LedgerRead {
  const from = options.from ?? LEDGER_START;
  const file = options.file;
  const records: EvidenceRecord[] = [];
  // The position after the last good record, kept in locals: one object per line would be garbage.
  let seq = from.seq;
  let hash = from.hash;
  let at = from.at;
  let lastLine = from.line;
  // The last good record's time, parsed once: each line's time is parsed once, then carried.
  let time = at !== '' ? Date.parse(at) : NaN;
  let cursor = 0;
  let bytes = from.offset;
  const position = (): LedgerPosition => ({ seq, hash, at, offset: bytes, line: lastLine });
  const fail = (d: Diagnostic): LedgerRead => ({ records, diagnostics: [d], end: position() });
  // Byte offsets are character offsets in an ASCII ledger (the usual case): no per-line count.
  // eslint-disable-next-line no-control-regex
  const ascii = !/[^\x00-\x7f]/.test(text);
  const site = (line: number) => ({ ...(file !== undefined ? { file } : {}), range: { line, col: 1, endLine: line, endCol: 1 } });
  while (cursor < text.length) {
    const nl = text.indexOf('\n', cursor);
    const lineNo = lastLine + 1;
    if (nl < 0) {
      return { records, diagnostics: [diagnose('ledgerTornLine', site(lineNo), lineNo)], end: position(), torn: { line: lineNo, offset: bytes } };
    }
    const line = text.slice(cursor, nl);
    const sealed = unsealLine(line);
    // One JSON.parse per line. Joining the lines into one array text to parse at once copies the
    // whole ledger twice more, and on a small VM those fresh megabytes cost more than they save.
    let record: EvidenceRecord | undefined;
    if (sealed) {
      try {
        record = JSON.parse(line) as EvidenceRecord;
      } catch {
        record = undefined;
      }
    }
    if (!sealed || !record || typeof record !== 'object') return fail(diagnose('ledgerUnparsable', site(lineNo), lineNo));
    if (sha256(sealed.body) !== sealed.hash || record.hash !== sealed.hash) return fail(diagnose('ledgerHashMismatch', site(lineNo), lineNo));
    if (record.prev !== hash || record.seq !== seq + 1) {
      const first = records.findIndex((r) => r.hash === record.hash);
      if (first >= 0) return fail(diagnose('ledgerDuplicate', site(lineNo), lineNo, from.line + first + 1));
      if (record.prev !== hash) return fail(diagnose('ledgerChainBroken', site(lineNo), lineNo));
      return fail(diagnose('ledgerSequence', site(lineNo), lineNo, seq + 1, record.seq));
    }
    const shape = shapeProblem(record);
    if (shape) return fail(diagnose('ledgerInvalidRecord', site(lineNo), lineNo, shape));
    const recordTime = record.at === at ? time : Date.parse(record.at);
    if (at !== '' && recordTime < time) return fail(diagnose('ledgerTimeOrder', site(lineNo), lineNo));
    if (options.canonical) {
      const { hash: _hash, ...body } = record;
      if (canonicalJson(body) !== sealed.body) return fail(diagnose('ledgerNotCanonical', site(lineNo), lineNo));
    }
    records.push(record);
    cursor = nl + 1;
    bytes = ascii ? from.offset + cursor : bytes + Buffer.byteLength(line) + 1;
    seq = record.seq;
    hash = record.hash;
    at = record.at;
    time = recordTime;
    lastLine = lineNo;
  }
  return { records, diagnostics: [], end: position() };
}

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;

/** Top-level fields the fold relies on; data fields are checked against the registry on append. */
function shapeProblem(r: EvidenceRecord): string | undefined {
  if (!Number.isInteger(r.seq)) return 'seq must be an integer';
  if (typeof r.at !== 'string' || !TIMESTAMP.test(r.at)) return 'at must be a UTC timestamp';
  if (typeof r.actor !== 'string' || r.actor === '') return 'actor must be a non-empty string';
  if (typeof r.type !== 'string' || typeof r.subject !== 'string') return 'type and subject must be strings';
  if (typeof r.data !== 'object' || r.data === null) return 'data must be an object';
  return undefined;
}
