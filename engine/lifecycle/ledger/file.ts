import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, readSync, renameSync, statSync, truncateSync, writeSync } from 'node:fs';
import { isAscii } from 'node:buffer';
import { dirname, join } from 'node:path';
import type { EvidenceDraft, EvidenceRecord } from '../../model/index.js';
import { type Diagnostic, diagnose } from '../../diagnostics/index.js';
import { sealLine } from './canonical.js';
import { withLock } from './lock.js';
import { type LedgerPosition, type LedgerRead, LEDGER_START, parseLedger } from './read.js';

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
}

/** Reads and checks a ledger file; a missing file is an empty ledger. Also checks the head anchor. */
export function readLedgerFile(files: LedgerFiles, options: ReadOptions = {}): LedgerRead {
  if (!existsSync(files.ledger)) return { records: [], diagnostics: [], end: LEDGER_START };
  const from = options.from;
  let text: string;
  if (from && from.offset > 0) {
    const fd = openSync(files.ledger, 'r');
    try {
      const size = statSync(files.ledger).size;
      const buffer = Buffer.alloc(Math.max(0, size - from.offset));
      readInto(fd, buffer, from.offset);
      text = decodeLedger(buffer);
    } finally {
      closeSync(fd);
    }
  } else {
    text = decodeLedger(readFileSync(files.ledger));
  }
  const read = parseLedger(text, { file: files.ledger, ...(options.canonical ? { canonical: true } : {}), ...(from ? { from } : {}) });
  if (read.diagnostics.length === 0) {
    const head = readHead(files);
    if (head && head.seq > read.end.seq) read.diagnostics.push(diagnose('ledgerTruncated', { file: files.ledger }, read.end.seq, head.seq));
    else if (head && head.seq === read.end.seq && head.hash !== read.end.hash) read.diagnostics.push(diagnose('ledgerChainBroken', { file: files.ledger, range: { line: read.end.line, col: 1, endLine: read.end.line, endCol: 1 } }, read.end.line));
  }
  return read;
}

/**
 * The ledger's text. A ledger is ASCII in the usual case, and then its bytes are its characters:
 * the one-byte copy is much cheaper than UTF-8 decoding of tens of megabytes, with the same text.
 */
function decodeLedger(bytes: Buffer): string {
  return isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
}

function readInto(fd: number, buffer: Buffer, position: number): void {
  let done = 0;
  while (done < buffer.length) {
    const n = readSync(fd, buffer, done, buffer.length - done, position + done);
    if (n === 0) break;
    done += n;
  }
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
 * Appends one record under the ledger lock: reads and checks the ledger, seals the draft onto
 * its tail, lets `check` refuse it (registry rules, pins, lifecycle), then writes the whole line
 * with one `write`, fsyncs, and moves the head anchor. Nothing is written when anything fails.
 */
export function appendEvidence(files: LedgerFiles, draft: StampableDraft, check: (record: EvidenceRecord, ledger: readonly EvidenceRecord[]) => Diagnostic[]): AppendResult {
  mkdirSync(dirname(files.ledger), { recursive: true });
  const outcome = withLock(files.lock, (): AppendResult => {
    const read = readLedgerFile(files);
    if (read.diagnostics.length) return { diagnostics: read.diagnostics };
    // Stamped under the lock, so concurrent appenders never record time going backwards.
    const at = draft.at ?? new Date().toISOString();
    const body = { ...draft, at, seq: read.end.seq + 1, prev: read.end.hash } as Record<string, unknown>;
    const { line, hash } = sealLine(body);
    const record = { ...body, hash } as unknown as EvidenceRecord;
    const problems = check(record, read.records);
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
