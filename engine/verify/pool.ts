import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from '../threads/module-worker.js';
import type { Diagnostic } from '../diagnostics/index.js';
import { GrammarMismatchError, loadPythonParser, pythonWasmPath } from './grammar.js';
import { type ScanOptions, scanFile } from './scan-file.js';
import type { FileScan } from './table.js';

/** A file to scan: where it is and the checkout-relative name results use. */
export interface ScanTarget {
  absolute: string;
  file: string;
}

/**
 * What a worker starts with: every file, the batch size, and the shared counter every thread
 * (workers and the caller) claims the next batch from, so no thread waits for another to hand
 * it work (the caller is busy parsing and reads replies only between its own batches).
 */
export interface PoolWork {
  files: readonly ScanTarget[];
  batchSize: number;
  /** One Int32 over a SharedArrayBuffer: the index of the next unclaimed batch. */
  next: Int32Array;
}

/** Claims the next batch index from the shared counter; at or past `batches` means none is left. */
export function claimBatch(next: Int32Array): number {
  return Atomics.add(next, 0, 1);
}

export type PoolReply = { type: 'ready' } | { type: 'grammar'; diagnostic: Diagnostic } | { type: 'scans'; batch: number; scans: FileScan[] };

/** Files per message: large enough that messaging is noise, small enough to balance the workers. */
const BATCH = 24;
/** Below this many files per worker, another worker costs more (wasm start-up) than it saves. */
const FILES_PER_WORKER = 48;

/**
 * How many worker threads for `count` files: with the calling thread, one thread per CPU;
 * none for trees of a batch or two, where starting a worker costs more than it saves.
 * `threads` overrides (0: the calling thread only).
 */
export function workerCount(count: number, threads?: number): number {
  if (threads !== undefined) return threads;
  return Math.max(0, Math.min(availableParallelism() - 1, Math.floor(count / FILES_PER_WORKER)));
}

/**
 * Scans every file with a pool of worker threads, each loading the grammar once, and returns
 * the scans in input order. The calling thread takes batches too, so a worker's start-up
 * (loading the wasm, or TypeScript under tsx) never leaves a core idle. Workers are always
 * terminated before this settles. `callerScans: false` leaves every batch to the workers (when
 * there are any): what a spec uses to prove the workers' tables equal the calling thread's.
 */
export async function scanFiles(files: readonly ScanTarget[], options: ScanOptions, threads?: number, callerScans = true): Promise<FileScan[]> {
  const count = workerCount(files.length, threads);
  // the calling thread stays out only when asked and there is a worker to do the work
  const caller = callerScans || count === 0;
  const batchCount = Math.ceil(files.length / BATCH);
  const work: PoolWork = { files, batchSize: BATCH, next: new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT)) };
  const results: FileScan[][] = new Array<FileScan[]>(batchCount);
  const workers: Worker[] = [];
  let pending = batchCount;
  let fail: ((error: unknown) => void) | undefined;
  let finish: (() => void) | undefined;
  const done = new Promise<void>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  // a worker may fail while this thread is still scanning: the rejection is awaited below
  done.catch(() => undefined);
  const settle = (batch: number, scans: FileScan[]): void => {
    results[batch] = scans;
    if (--pending === 0) finish!();
  };
  if (pending === 0) finish!();
  try {
    for (let i = 0; i < count && (batchCount > 1 || !caller); i++) {
      const worker = startModuleWorker(import.meta.url, 'worker', { wasmPath: pythonWasmPath(), options, work });
      workers.push(worker);
      worker.on('message', (reply: PoolReply) => {
        if (reply.type === 'grammar') return fail!(new GrammarMismatchError(reply.diagnostic));
        if (reply.type === 'scans') settle(reply.batch, reply.scans);
      });
      worker.on('error', (error) => fail!(error));
      worker.on('exit', (code) => {
        if (pending > 0 && code !== 0) fail!(new Error(`verify scan worker exited with code ${code}`));
      });
    }
    const parser = caller ? await loadPythonParser() : undefined;
    try {
      const bodies = new Set(options.bodies);
      for (let batch = parser ? claimBatch(work.next) : batchCount; batch < batchCount; batch = claimBatch(work.next)) {
        settle(batch, files.slice(batch * BATCH, (batch + 1) * BATCH).map((f) => scanFile(parser!, f.absolute, f.file, options, bodies)));
        // let worker replies in between batches
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    } finally {
      parser?.delete();
    }
    await done;
  } finally {
    // a worker still starting up can take a while to stop: do not make the caller wait for it
    for (const worker of workers) void worker.terminate();
  }
  return results.flat();
}
