import type { EvidenceRecord } from '../../model/index.js';
import type { Diagnostic } from '../../diagnostics/index.js';
import { GENESIS } from './canonical.js';

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
  /** Its `prev`: the hash of the record before it (absent at the start), so a head one record behind is checked without reading back. */
  prev?: string;
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
