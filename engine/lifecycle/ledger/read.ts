import type { EvidenceRecord } from '../../model/index.js';
import { type LedgerRead } from './position.js';
import { type ScanOptions, bufferSource, scanLedger } from './scan.js';

export { type LedgerPosition, type LedgerRead, LEDGER_START } from './position.js';

export type ParseOptions = ScanOptions;

/**
 * Reads ledger text and checks the chain (see `scanLedger`); the text starts at `options.from`.
 * Stops at the first bad line and names it; an unterminated last line is reported as torn.
 */
export function parseLedger(text: string, options: ParseOptions = {}): LedgerRead {
  const records: EvidenceRecord[] = [];
  const { count: _count, ...scan } = scanLedger(bufferSource(Buffer.from(text, 'utf8'), options.from?.offset ?? 0), options, (record) => records.push(record));
  return { records, ...scan };
}
