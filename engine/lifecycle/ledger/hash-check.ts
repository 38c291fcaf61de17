import { Worker } from 'node:worker_threads';
import { HASH_SUFFIX_LENGTH } from './canonical.js';

/**
 * Checks every complete line's hash of a ledger file on a worker thread, while the calling thread
 * parses the same lines and folds them (`scanLedgerFile` with `parallelHashes`). The worker is
 * plain JavaScript evaluated from this string (Node built-ins only), so it starts the same under
 * tsx, from the compiled output and from a bundle. It reports through shared memory, so the
 * synchronous reader can wait for it without an event loop turn.
 *
 * Status slots: [0] state (0 running, 1 done, 2 failed), [1] lines checked, [2] first bad line
 * (1-based, counted from the start offset; 0 when none).
 */
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const { openSync, readSync, closeSync } = require('node:fs');
const crypto = require('node:crypto');
const status = new Int32Array(workerData.status);
const SUFFIX = ${HASH_SUFFIX_LENGTH};
const KEY = Buffer.from(',"hash":"');
const sha = (bytes) => (crypto.hash ? crypto.hash('sha256', bytes, 'hex') : crypto.createHash('sha256').update(bytes).digest('hex'));
let state = 1;
try {
  const fd = openSync(workerData.file, 'r');
  try {
    let buffer = Buffer.allocUnsafe(1 << 20);
    let filled = 0, position = workerData.offset, lines = 0, bad = 0, searched = 0;
    outer: for (;;) {
      const n = readSync(fd, buffer, filled, buffer.length - filled, position + filled);
      filled += n;
      const view = buffer.subarray(0, filled);
      let cursor = 0;
      for (;;) {
        const nl = view.indexOf(10, Math.max(cursor, searched));
        if (nl < 0) break;
        lines++;
        const cut = nl - SUFFIX;
        let ok = nl - cursor >= SUFFIX + 2 && buffer[nl - 1] === 0x7d && buffer.compare(KEY, 0, KEY.length, cut, cut + KEY.length) === 0;
        if (ok) {
          const saved = buffer[cut];
          buffer[cut] = 0x7d;
          ok = sha(buffer.subarray(cursor, cut + 1)) === buffer.toString('latin1', nl - 66, nl - 2);
          buffer[cut] = saved;
        }
        if (!ok) { bad = lines; break outer; }
        cursor = nl + 1;
      }
      searched = filled - cursor;
      if (cursor > 0) { buffer.copy(buffer, 0, cursor, filled); filled -= cursor; position += cursor; }
      else if (filled === buffer.length) { const grown = Buffer.allocUnsafe(buffer.length * 2); buffer.copy(grown, 0, 0, filled); buffer = grown; }
      if (n === 0 && cursor === 0) break;
    }
    Atomics.store(status, 1, lines);
    Atomics.store(status, 2, bad);
  } finally {
    closeSync(fd);
  }
} catch (error) {
  state = 2;
}
Atomics.store(status, 0, state);
Atomics.notify(status, 0);
`;

export interface HashCheckVerdict {
  /** The first line (1-based, from the start offset) whose hash does not match; undefined: none. */
  firstBad?: number;
  /** The worker could not give a verdict (it failed, or did not answer in time): check inline. */
  failed: boolean;
}

export interface HashCheck {
  /** Blocks until the worker has checked every line, then ends it. */
  verdict(): HashCheckVerdict;
}

/**
 * Starts checking the hashes of the `bytes` bytes of `file` from byte `offset`; undefined when no
 * thread can be started (check inline then).
 */
export function startHashCheck(file: string, offset: number, bytes: number): HashCheck | undefined {
  const status = new Int32Array(new SharedArrayBuffer(12));
  let worker: Worker;
  try {
    worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file, offset, status: status.buffer } });
  } catch {
    return undefined;
  }
  // A worker that dies (out of memory, say) reports through no status: the deadline below covers it.
  worker.on('error', () => undefined);
  // Hashing runs at hundreds of MB/s; a worker this far behind is not coming back.
  const patience = 10_000 + bytes / 20_000;
  // The worker holds no handle the process should wait for.
  worker.unref();
  return {
    verdict(): HashCheckVerdict {
      // A worker that never answers must not hang the reader: after this long, check inline.
      const deadline = Date.now() + patience;
      while (Atomics.load(status, 0) === 0) {
        const left = deadline - Date.now();
        if (left <= 0) break;
        Atomics.wait(status, 0, 0, Math.min(left, 1000));
      }
      const state = Atomics.load(status, 0);
      void worker.terminate();
      if (state !== 1) return { failed: true };
      const bad = Atomics.load(status, 2);
      return bad > 0 ? { firstBad: bad, failed: false } : { failed: false };
    },
  };
}
