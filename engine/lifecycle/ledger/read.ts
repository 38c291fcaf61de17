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
  let pos = { ...from };
  let cursor = 0;
  let bytes = from.offset;
  const fail = (d: Diagnostic): LedgerRead => ({ records, diagnostics: [d], end: pos });
  // Byte offsets are character offsets in an ASCII ledger (the usual case): no per-line count.
  // eslint-disable-next-line no-control-regex
  const ascii = !/[^\x00-\x7f]/.test(text);
  // Every complete line at once: one JSON.parse of the lines joined as an array is much cheaper
  // than one per line. Any bad line makes it throw; then each line is parsed on its own below.
  const complete = text.lastIndexOf('\n');
  let parsed: EvidenceRecord[] | undefined;
  if (complete > 0) {
    try {
      parsed = JSON.parse(`[${text.slice(0, complete).replaceAll('\n', ',')}]`) as EvidenceRecord[];
    } catch {
      parsed = undefined;
    }
  }
  const site = (line: number) => ({ ...(file !== undefined ? { file } : {}), range: { line, col: 1, endLine: line, endCol: 1 } });
  while (cursor < text.length) {
    const nl = text.indexOf('\n', cursor);
    const lineNo = pos.line + 1;
    if (nl < 0) {
      return { records, diagnostics: [diagnose('ledgerTornLine', site(lineNo), lineNo)], end: pos, torn: { line: lineNo, offset: bytes } };
    }
    const line = text.slice(cursor, nl);
    const sealed = unsealLine(line);
    let record: EvidenceRecord | undefined;
    if (sealed) {
      record = parsed?.[records.length];
      if (record === undefined) {
        try {
          record = JSON.parse(line) as EvidenceRecord;
        } catch {
          record = undefined;
        }
      }
    }
    if (!sealed || !record || typeof record !== 'object') return fail(diagnose('ledgerUnparsable', site(lineNo), lineNo));
    if (sha256(sealed.body) !== sealed.hash || record.hash !== sealed.hash) return fail(diagnose('ledgerHashMismatch', site(lineNo), lineNo));
    if (record.prev !== pos.hash || record.seq !== pos.seq + 1) {
      const first = records.findIndex((r) => r.hash === record.hash);
      if (first >= 0) return fail(diagnose('ledgerDuplicate', site(lineNo), lineNo, from.line + first + 1));
      if (record.prev !== pos.hash) return fail(diagnose('ledgerChainBroken', site(lineNo), lineNo));
      return fail(diagnose('ledgerSequence', site(lineNo), lineNo, pos.seq + 1, record.seq));
    }
    const shape = shapeProblem(record);
    if (shape) return fail(diagnose('ledgerInvalidRecord', site(lineNo), lineNo, shape));
    if (pos.at !== '' && Date.parse(record.at) < Date.parse(pos.at)) return fail(diagnose('ledgerTimeOrder', site(lineNo), lineNo));
    if (options.canonical) {
      const { hash: _hash, ...body } = record;
      if (canonicalJson(body) !== sealed.body) return fail(diagnose('ledgerNotCanonical', site(lineNo), lineNo));
    }
    records.push(record);
    cursor = nl + 1;
    bytes = ascii ? from.offset + cursor : bytes + Buffer.byteLength(line) + 1;
    pos = { seq: record.seq, hash: record.hash, at: record.at, offset: bytes, line: lineNo };
  }
  return { records, diagnostics: [], end: pos };
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
