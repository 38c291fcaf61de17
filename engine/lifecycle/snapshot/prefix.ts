import { createHash, type Hash } from 'node:crypto';
import { closeSync, readSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type { LedgerFiles } from '../ledger/file.js';
import { openRegular } from '../ledger/regular.js';

/**
 * The snapshot's proof: the ledger's bytes before its position hash to the digest it was made
 * from. A warm `status` re-hashes them every time (tens of MB for a large ledger), so from
 * `PARALLEL_PREFIX_MIN_BYTES` on they are hashed on a worker thread while the calling thread
 * parses the snapshot and folds the tail; the verdict is awaited before anything is shown.
 */

/** The prefix size below which hashing it inline costs less than starting a thread. */
export const PARALLEL_PREFIX_MIN_BYTES = 8 << 20;

const CHUNK = 4 << 20;

/**
 * The worker: plain JavaScript evaluated from this string (Node built-ins only), as the hash check
 * of a cold scan is (`ledger/hash-check.ts`), so it starts the same under tsx, from the compiled
 * output and from a bundle. It reads through the descriptor the caller opened and checked (threads
 * share descriptors), so it hashes the very file the caller verified is regular and long enough.
 * Status slots: [0] state (0 running, 1 done, 2 failed, 3 file shorter than the prefix); the digest
 * (32 bytes) goes to its own shared buffer.
 */
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const { readSync } = require('node:fs');
const crypto = require('node:crypto');
const status = new Int32Array(workerData.status);
let state = 1;
try {
  const hash = crypto.createHash('sha256');
  const chunk = Buffer.allocUnsafe(Math.min(workerData.bytes, ${CHUNK}));
  for (let at = 0; at < workerData.bytes; ) {
    const n = readSync(workerData.fd, chunk, 0, Math.min(chunk.length, workerData.bytes - at), at);
    if (n === 0) { state = 3; break; }
    hash.update(n === chunk.length ? chunk : chunk.subarray(0, n));
    at += n;
  }
  if (state === 1) new Uint8Array(workerData.digest).set(hash.digest());
} catch (error) {
  state = 2;
}
Atomics.store(status, 0, state);
Atomics.notify(status, 0);
`;

/** A prefix hash under way: `digest` blocks until it is done, and is asked once (it ends the worker). */
export interface PrefixCheck {
  /** sha256 (hex) of the prefix; undefined when the ledger is not a regular file that long. */
  digest(): string | undefined;
}

/**
 * Starts hashing the ledger's first `bytes` bytes; with fewer than `minBytes`, or where no thread
 * can be started, they are hashed inline when the digest is asked for.
 */
export function startPrefixCheck(files: LedgerFiles, bytes: number, minBytes = PARALLEL_PREFIX_MIN_BYTES): PrefixCheck {
  const inline: PrefixCheck = { digest: () => prefixDigest(files, bytes)?.digest('hex') };
  if (bytes === 0 || bytes < minBytes) return inline;
  const opened = openRegular(files.ledger);
  if (!('fd' in opened)) return { digest: () => undefined };
  if (opened.size < bytes) {
    closeSync(opened.fd);
    return { digest: () => undefined };
  }
  const fd = opened.fd;
  const status = new Int32Array(new SharedArrayBuffer(4));
  const digest = new Uint8Array(new SharedArrayBuffer(32));
  let worker: Worker;
  try {
    worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { fd, bytes, status: status.buffer, digest: digest.buffer } });
  } catch {
    closeSync(fd);
    return inline;
  }
  // A worker that dies reports through no status: the deadline below covers it.
  worker.on('error', () => undefined);
  worker.unref();
  // Hashing runs at hundreds of MB/s; a worker this far behind is not coming back.
  const patience = 10_000 + bytes / 20_000;
  return {
    digest(): string | undefined {
      const deadline = Date.now() + patience;
      while (Atomics.load(status, 0) === 0) {
        const left = deadline - Date.now();
        if (left <= 0) break;
        Atomics.wait(status, 0, 0, Math.min(left, 1000));
      }
      const state = Atomics.load(status, 0);
      void worker.terminate();
      // The descriptor outlives the worker's reads: closed once it has answered, or is given up on (then the prefix is hashed inline).
      closeSync(fd);
      if (state === 0 || state === 2) return inline.digest();
      return state === 1 ? Buffer.from(digest).toString('hex') : undefined;
    },
  };
}

/** The sha256 state over the ledger's first `offset` bytes; undefined when it is not a regular file that long. */
export function prefixDigest(files: LedgerFiles, offset: number): Hash | undefined {
  const hash = createHash('sha256');
  if (offset === 0) return hash;
  const opened = openRegular(files.ledger);
  if (!('fd' in opened)) return undefined;
  try {
    if (opened.size < offset) return undefined;
    const chunk = Buffer.allocUnsafe(Math.min(offset, CHUNK));
    for (let at = 0; at < offset; ) {
      const n = readSync(opened.fd, chunk, 0, Math.min(chunk.length, offset - at), at);
      if (n === 0) return undefined;
      hash.update(n === chunk.length ? chunk : chunk.subarray(0, n));
      at += n;
    }
    return hash;
  } finally {
    closeSync(opened.fd);
  }
}

/**
 * The digest of the ledger's first `end` bytes, for a snapshot rewritten after a warm fold: read
 * once more, and taken only when its first `offset` bytes still hash to `prefix` (the proof the
 * fold resumed from) and the bytes from there to `end` to `tail` (what the tail's scan verified
 * and folded). Undefined otherwise: the file changed meanwhile, and no snapshot is written.
 */
export function extendedPrefix(files: LedgerFiles, offset: number, prefix: string, end: number, tail: string): string | undefined {
  const opened = openRegular(files.ledger);
  if (!('fd' in opened)) return undefined;
  try {
    if (opened.size < end || end < offset) return undefined;
    const whole = createHash('sha256');
    const rest = createHash('sha256');
    if (offset === 0 && whole.copy().digest('hex') !== prefix) return undefined;
    const chunk = Buffer.allocUnsafe(Math.max(1, Math.min(end, CHUNK)));
    for (let at = 0; at < end; ) {
      // Chunks stop at `offset`, so the prefix's digest can be read off there.
      const limit = at < offset ? offset : end;
      const n = readSync(opened.fd, chunk, 0, Math.min(chunk.length, limit - at), at);
      if (n === 0) return undefined;
      const bytes = n === chunk.length ? chunk : chunk.subarray(0, n);
      whole.update(bytes);
      if (at >= offset) rest.update(bytes);
      at += n;
      if (at === offset && whole.copy().digest('hex') !== prefix) return undefined;
    }
    return rest.digest('hex') === tail ? whole.digest('hex') : undefined;
  } finally {
    closeSync(opened.fd);
  }
}
