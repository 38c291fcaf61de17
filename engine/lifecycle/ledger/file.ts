import { closeSync, existsSync, fstatSync, fsyncSync, mkdirSync, openSync, readFileSync, readSync, renameSync, truncateSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { EvidenceDraft, EvidenceRecord } from '../../model/index.js';
import { type Diagnostic, diagnose } from '../../diagnostics/index.js';
import { sealLine } from './canonical.js';
import { withLock } from './lock.js';
import { type LedgerPosition, type LedgerRead, LEDGER_START } from './position.js';
import { type LedgerScan, type LedgerSource, scanLedger } from './scan.js';
import { startHashCheck } from './hash-check.js';

/** The ledger of a registry: `<registry>/evidence/ledger.jsonl`, its head anchor and its lock. */
export interface LedgerFiles {
  ledger: string;
  head: string;
  lock: string;
}

export function ledgerFiles(registryRoot: string): LedgerFiles {
  const ledger = join(registryRoot, 'evidence', 'ledger.jsonl');
  return { ledger, head: join(registryRoot, 'evidence', 'ledger.head'), lock: `${ledger}.lock` };
}

/** The last record's seq and hash, rewritten after every append: removing records from the end shows against it. */
export interface LedgerHead {
  seq: number;
  hash: string;
}

export interface ReadOptions {
  canonical?: boolean;
  /** Read only the bytes after this position (the warm path). */
  from?: LedgerPosition;
  /**
   * Check the line hashes on a worker thread while this thread parses and folds, when at least
   * `minBytes` (default 8 MiB) are to be read. Should the worker find a bad line (or fail), the
   * scan returns `recheck`: records may have been handed on past the good prefix, so the caller
   * discards what it made of them and scans again without this option, which names the line.
   */
  parallelHashes?: { minBytes?: number };
}

/** The default amount of ledger below which checking hashes inline costs less than starting a thread. */
export const PARALLEL_HASHES_MIN_BYTES = 8 << 20;

/** Reads and checks a ledger file, keeping its records (see `scanLedgerFile`); a missing file is an empty ledger. */
export function readLedgerFile(files: LedgerFiles, options: ReadOptions = {}): LedgerRead {
  const records: EvidenceRecord[] = [];
  const { count: _count, ...scan } = scanLedgerFile(files, options, (record) => records.push(record));
  return { records, ...scan };
}

/**
 * Streams a ledger file through the chain check, handing each good record to `onRecord` and
 * keeping none (the cold fold of a large ledger runs in bounded memory); a missing file is an
 * empty ledger. Also checks the head anchor: records removed from the end show against it.
 */
export function scanLedgerFile(files: LedgerFiles, options: ReadOptions, onRecord: (record: EvidenceRecord) => void): LedgerScan & { recheck?: true } {
  let fd: number;
  try {
    fd = openSync(files.ledger, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { count: 0, diagnostics: [], end: LEDGER_START };
    throw error;
  }
  let scan: LedgerScan;
  try {
    const start = options.from?.offset ?? 0;
    const remaining = options.parallelHashes !== undefined && !options.canonical ? fstatSync(fd).size - start : -1;
    const check = options.parallelHashes !== undefined && remaining >= (options.parallelHashes.minBytes ?? PARALLEL_HASHES_MIN_BYTES) ? startHashCheck(files.ledger, start, remaining) : undefined;
    const source: LedgerSource = (buffer, offset, length, position) => readSync(fd, buffer, offset, length, position);
    scan = scanLedger(source, { file: files.ledger, ...(options.canonical ? { canonical: true } : {}), ...(options.from ? { from: options.from } : {}), ...(check ? { skipHashes: true } : {}) }, onRecord);
    if (check) {
      const verdict = check.verdict();
      // A clean verdict covers every line: the scan's own findings stand as an inline check would
      // give them. So does a bad hash after the line the scan stopped at.
      const stoppedAt = scan.diagnostics.length ? scan.end.line - (options.from?.line ?? 0) + 1 : Infinity;
      if (verdict.failed || (verdict.firstBad !== undefined && verdict.firstBad <= stoppedAt)) return { ...scan, recheck: true };
    }
  } finally {
    closeSync(fd);
  }
  if (scan.diagnostics.length === 0) {
    const head = readHead(files);
    if (head && head.seq > scan.end.seq) scan.diagnostics.push(diagnose('ledgerTruncated', { file: files.ledger }, scan.end.seq, head.seq));
    else if (head && head.seq === scan.end.seq && head.hash !== scan.end.hash) scan.diagnostics.push(diagnose('ledgerChainBroken', { file: files.ledger, range: { line: scan.end.line, col: 1, endLine: scan.end.line, endCol: 1 } }, scan.end.line));
  }
  return scan;
}

export function readHead(files: LedgerFiles): LedgerHead | undefined {
  if (!existsSync(files.head)) return undefined;
  const head = JSON.parse(readFileSync(files.head, 'utf8')) as LedgerHead;
  return head;
}

/** A draft whose `at` may be left out: then it is the time of the append, taken under the lock. */
export type StampableDraft = Omit<EvidenceDraft, 'at'> & { at?: string };

export interface AppendResult {
  record?: EvidenceRecord;
  diagnostics: Diagnostic[];
}

/**
 * Appends one record under the ledger lock: checks the ledger, seals the draft onto its tail,
 * lets `check` refuse it (registry rules, pins, lifecycle: `ledgerAdmission`), then writes the whole line
 * with one `write`, fsyncs, and moves the head anchor. Nothing is written when anything fails.
 */
export function appendEvidence(files: LedgerFiles, draft: StampableDraft, check: (record: EvidenceRecord, end: LedgerPosition) => Diagnostic[]): AppendResult {
  mkdirSync(dirname(files.ledger), { recursive: true });
  const outcome = withLock(files.lock, (): AppendResult => {
    // The whole chain is checked (streamed, nothing kept): nothing is appended to a damaged ledger.
    const read = scanLedgerFile(files, {}, () => undefined);
    if (read.diagnostics.length) return { diagnostics: read.diagnostics };
    // Stamped under the lock, so concurrent appenders never record time going backwards.
    const at = draft.at ?? new Date().toISOString();
    const body = { ...draft, at, seq: read.end.seq + 1, prev: read.end.hash } as Record<string, unknown>;
    const { line, hash } = sealLine(body);
    const record = { ...body, hash } as unknown as EvidenceRecord;
    const problems = check(record, read.end);
    if (problems.some((d) => d.severity === 'error')) return { diagnostics: problems };
    const fd = openSync(files.ledger, 'a');
    try {
      const bytes = Buffer.from(`${line}\n`);
      const written = writeSync(fd, bytes);
      if (written !== bytes.length) throw new Error(`short write to ${files.ledger}: ${written} of ${bytes.length} bytes`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    writeHead(files, { seq: record.seq, hash: record.hash });
    return { record, diagnostics: problems };
  });
  return 'code' in outcome ? { diagnostics: [outcome] } : outcome;
}

function writeHead(files: LedgerFiles, head: LedgerHead): void {
  const tmp = `${files.head}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w');
  try {
    writeSync(fd, `${JSON.stringify(head)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, files.head);
}

/** Drops a torn last line (and only that): truncates the file to the end of the last complete record. */
export function repairTornLine(files: LedgerFiles): { dropped?: number; diagnostics: Diagnostic[] } {
  const outcome = withLock(files.lock, () => {
    const read = readLedgerFile(files);
    if (!read.torn) return { diagnostics: read.diagnostics };
    truncateSync(files.ledger, read.torn.offset);
    return { dropped: read.torn.line, diagnostics: [] };
  });
  return 'code' in outcome ? { diagnostics: [outcome] } : outcome;
}
