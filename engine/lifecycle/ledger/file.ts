import { closeSync, fsyncSync, mkdirSync, openSync, readSync, truncateSync, writeSync } from 'node:fs';
import { createHash, type Hash } from 'node:crypto';
import { dirname, join } from 'node:path';
import type { EvidenceDraft, EvidenceRecord } from '../../model/index.js';
import { type Diagnostic, diagnose } from '../../diagnostics/index.js';
import { sealLine } from './canonical.js';
import { type Lease, withLock } from './lock.js';
import { type LedgerPosition, type LedgerRead, LEDGER_START } from './position.js';
import { type LedgerScan, type LedgerSource, bufferSource, scanLedger } from './scan.js';
import { startHashCheck } from './hash-check.js';
import { type LedgerHead, checkHead, readHeadFile, writeHeadFile } from './head.js';
import { openRegular } from './regular.js';
import { type Trust, historyProblem, loadTrust, trustVetter } from './trust.js';

/** The ledger of a registry: `<registry>/evidence/ledger.jsonl`, its head anchor, its lock and its trusted signers. */
export interface LedgerFiles {
  ledger: string;
  head: string;
  lock: string;
  /** Trusted signers in OpenSSH `allowed_signers` form (see `loadTrust`). */
  signers: string;
}

export function ledgerFiles(registryRoot: string): LedgerFiles {
  const ledger = join(registryRoot, 'evidence', 'ledger.jsonl');
  return { ledger, head: join(registryRoot, 'evidence', 'ledger.head'), lock: `${ledger}.lock`, signers: join(registryRoot, 'evidence', 'allowed_signers') };
}

export type { LedgerHead } from './head.js';

export interface ReadOptions {
  canonical?: boolean;
  /** Read only the bytes after this position (the warm path: the caller has proven the bytes before it). */
  from?: LedgerPosition;
  /**
   * Check the line hashes on a worker thread while this thread parses and folds, when at least
   * `minBytes` (default 8 MiB) are to be read. Should the worker find a bad line (or fail), the
   * scan returns `recheck`: records may have been handed on past the good prefix, so the caller
   * discards what it made of them and scans again without this option, which names the line.
   */
  parallelHashes?: { minBytes?: number };
  /** The trusted signers (`loadTrust`): every signature is checked, and unsigned records past the history refused. */
  trust?: Trust;
  /** Fed every good line's bytes, newline included, in order (the snapshot's proof of the prefix). */
  digest?: Hash;
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
 * keeping none (the cold fold of a large ledger runs in bounded memory). Refuses a ledger or head
 * that is not a regular file, then checks the head anchor: a missing ledger under a head, records
 * without a head, records cut from the end and a head naming another record are errors.
 */
export function scanLedgerFile(files: LedgerFiles, options: ReadOptions, onRecord: (record: EvidenceRecord) => void): LedgerScan & { recheck?: true; head?: LedgerHead } {
  const opened = openRegular(files.ledger);
  if ('refused' in opened) return { count: 0, diagnostics: [opened.refused], end: options.from ?? LEDGER_START };
  const trust = options.trust ?? loadTrust(files.signers);
  if (trust.diagnostics.length) {
    if ('fd' in opened) closeSync(opened.fd);
    return { count: 0, diagnostics: trust.diagnostics, end: options.from ?? LEDGER_START };
  }
  const headRead = readHeadFile(files.head);
  const head = headRead.head;
  if ('missing' in opened) {
    const end = options.from ?? LEDGER_START;
    const diagnostics = headRead.diagnostics.length ? headRead.diagnostics : checkHead(files.head, files.ledger, head, false, end);
    return { count: 0, diagnostics, end, ...(head ? { head } : {}) };
  }
  const fd = opened.fd;
  let scan: LedgerScan;
  const vet = trustVetter(trust, files.ledger);
  try {
    const start = options.from?.offset ?? 0;
    const remaining = options.parallelHashes !== undefined && !options.canonical ? opened.size - start : -1;
    const check = options.parallelHashes !== undefined && remaining >= (options.parallelHashes.minBytes ?? PARALLEL_HASHES_MIN_BYTES) ? startHashCheck(files.ledger, start, remaining) : undefined;
    const source: LedgerSource = (buffer, offset, length, position) => readSync(fd, buffer, offset, length, position);
    scan = scanLedger(source, {
      file: files.ledger,
      ...(options.canonical ? { canonical: true } : {}),
      ...(options.from ? { from: options.from } : {}),
      ...(check ? { skipHashes: true } : {}),
      vet,
      ...(options.digest ? { digest: options.digest } : {}),
    }, onRecord);
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
    if (headRead.diagnostics.length) scan.diagnostics.push(...headRead.diagnostics);
    else scan.diagnostics.push(...checkHead(files.head, files.ledger, head, true, scan.end));
    const cut = scan.diagnostics.length ? undefined : historyProblem(trust, files.signers, scan.end.seq);
    if (cut) scan.diagnostics.push(cut);
  }
  return head ? { ...scan, head } : scan;
}

/** The head anchor, when it is present and readable. */
export function readHead(files: LedgerFiles): LedgerHead | undefined {
  return readHeadFile(files.head).head;
}

/** A draft whose `at` may be left out: then it is the time of the append, taken under the lock. */
export type StampableDraft = Omit<EvidenceDraft, 'at'> & { at?: string };

export interface AppendResult {
  record?: EvidenceRecord;
  diagnostics: Diagnostic[];
}

/**
 * What an append asks before it writes. The ledger is streamed once under the lock: every good
 * record goes to `onRecord` (the admission folds from the verified records themselves, never from
 * a cache), then `check` refuses the sealed record or lets it through. `sign` turns the sealed
 * body into its signature (`--key`); `committed` hears of the record once it is durable, with the
 * digest of every ledger byte up to its end (the snapshot store's proof).
 */
export interface Admission {
  onRecord(record: EvidenceRecord): void;
  check(record: EvidenceRecord, end: LedgerPosition): Diagnostic[];
  sign?(body: Record<string, unknown>): { signature: string } | Diagnostic;
  committed?(record: EvidenceRecord, end: LedgerPosition, prefixDigest: string): void;
  /** The trusted signers the chain is checked against. */
  trust?: Trust;
}

/**
 * Appends one record under the ledger lock: checks the ledger (streamed into the admission's
 * fold), seals the draft onto its tail, lets the admission refuse it (registry rules, pins,
 * lifecycle), makes the head name the scanned end if it does not, then writes the whole line with
 * one `write`, fsyncs, and moves the head anchor onto it (see `checkHead` for the rule this keeps).
 * Nothing is written when anything fails, nor when the lock file was replaced meanwhile.
 */
export function appendEvidence(files: LedgerFiles, draft: StampableDraft, admission: Admission): AppendResult {
  const batch = appendEvidenceBatch(files, [draft], admission);
  return batch.records[0] ? { record: batch.records[0], diagnostics: batch.diagnostics } : { diagnostics: batch.diagnostics };
}

export interface BatchAppendResult {
  /** Every record appended, in order: all of the drafts, or none. */
  records: EvidenceRecord[];
  diagnostics: Diagnostic[];
  /** The index of the draft refused, when one was (nothing was appended then). */
  refused?: number;
}

/**
 * Appends several records as one batch, all or none, under one hold of the ledger lock: the
 * ledger is checked once, each draft is sealed onto the one before it and judged by the
 * admission with every earlier draft of the batch already folded in (`check` is called once per
 * draft, in order), and only when every one is admitted are all the lines written with one
 * `write`, fsynced, and the head moved onto the last. A refusal (or a lock file replaced meanwhile) writes nothing,
 * so no committed record is ever taken back. The records share the time stamped under the lock.
 */
export function appendEvidenceBatch(files: LedgerFiles, drafts: readonly StampableDraft[], admission: Admission): BatchAppendResult {
  if (drafts.length === 0) return { records: [], diagnostics: [] };
  mkdirSync(dirname(files.ledger), { recursive: true });
  const outcome = withLock(files.lock, (lease: Lease): BatchAppendResult => {
    const digest = createHash('sha256');
    const read = scanLedgerFile(files, { digest, ...(admission.trust ? { trust: admission.trust } : {}) }, admission.onRecord);
    if (read.diagnostics.length) return { records: [], diagnostics: read.diagnostics };
    // Stamped under the lock, so concurrent appenders never record time going backwards.
    const now = new Date().toISOString();
    const vet = trustVetter(admission.trust ?? loadTrust(files.signers), files.ledger);
    const records: EvidenceRecord[] = [];
    const lines: string[] = [];
    const warnings: Diagnostic[] = [];
    let tail: LedgerPosition = read.end;
    for (const [index, draft] of drafts.entries()) {
      let body = { ...draft, at: draft.at ?? now, seq: tail.seq + 1, prev: tail.hash } as Record<string, unknown>;
      if (admission.sign) {
        const signed = admission.sign(body);
        if ('code' in signed) return { records: [], diagnostics: [signed], refused: index };
        body = { ...body, signature: signed.signature };
      }
      const { line, hash } = sealLine(body);
      const record = { ...body, hash } as unknown as EvidenceRecord;
      // The record must pass the scan's own trust check, or the ledger would refuse itself after this append.
      const untrusted = vet(record, tail.line + 1);
      if (untrusted) return { records: [], diagnostics: [untrusted], refused: index };
      const problems = admission.check(record, tail);
      if (problems.some((d) => d.severity === 'error')) return { records: [], diagnostics: problems, refused: index };
      warnings.push(...problems);
      records.push(record);
      lines.push(`${line}\n`);
      tail = { seq: record.seq, hash: record.hash, at: record.at, offset: tail.offset + Buffer.byteLength(line) + 1, line: tail.line + 1, prev: record.prev };
    }
    if (!lease.held()) return { records: [], diagnostics: [diagnose('ledgerLockLost', { file: files.lock })] };
    // The head first names the end just scanned (the genesis head on an empty ledger, a record an
    // interrupted append left unanchored). Then each line is synced and anchored before the next is
    // written, so a kill anywhere leaves the head on the last record or the one before it (a crash
    // can keep a prefix of a batch; a refusal keeps none of it).
    if (!read.head || read.head.seq !== read.end.seq) writeHeadFile(files.head, { seq: read.end.seq, hash: read.end.hash });
    const fd = openSync(files.ledger, 'a');
    try {
      for (const [i, text] of lines.entries()) {
        const bytes = Buffer.from(text);
        const written = writeSync(fd, bytes);
        if (written !== bytes.length) throw new Error(`short write to ${files.ledger}: ${written} of ${bytes.length} bytes`);
        fsyncSync(fd);
        writeHeadFile(files.head, { seq: records[i]!.seq, hash: records[i]!.hash });
      }
    } finally {
      closeSync(fd);
    }
    const last = records[records.length - 1]!;
    admission.committed?.(last, tail, digest.update(lines.join('')).digest('hex'));
    return { records, diagnostics: warnings };
  });
  return 'code' in outcome ? { records: [], diagnostics: [outcome] } : outcome;
}

/**
 * Mends the end of a ledger an append was interrupted at. A last line without its newline that is
 * a complete, valid record continuing the chain gets its newline (and the head moves onto it); a
 * torn one is dropped, and only that.
 */
export function repairTornLine(files: LedgerFiles, trust?: Trust): { dropped?: number; completed?: number; diagnostics: Diagnostic[] } {
  const outcome = withLock(files.lock, () => {
    const read = readLedgerFile(files, trust ? { trust } : {});
    if (!read.torn) return { diagnostics: read.diagnostics };
    const opened = openRegular(files.ledger);
    if (!('fd' in opened)) return { diagnostics: read.diagnostics };
    const tail = Buffer.alloc(opened.size - read.torn.offset + 1);
    try {
      readSync(opened.fd, tail, 0, tail.length - 1, read.torn.offset);
    } finally {
      closeSync(opened.fd);
    }
    tail[tail.length - 1] = 0x0a;
    const last: EvidenceRecord[] = [];
    const vet = trustVetter(trust ?? loadTrust(files.signers), files.ledger);
    const completed = scanLedger(bufferSource(tail, read.torn.offset), { file: files.ledger, canonical: true, from: read.end, vet }, (r) => last.push(r));
    if (completed.diagnostics.length === 0 && completed.count === 1) {
      const fd = openSync(files.ledger, 'a');
      try {
        writeSync(fd, '\n');
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      writeHeadFile(files.head, { seq: last[0]!.seq, hash: last[0]!.hash });
      return { completed: read.torn.line, diagnostics: [] };
    }
    truncateSync(files.ledger, read.torn.offset);
    return { dropped: read.torn.line, diagnostics: [] };
  });
  return 'code' in outcome ? { diagnostics: [outcome] } : outcome;
}
