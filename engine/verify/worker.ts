/**
 * Scan worker: loads the pinned grammar once, then claims batches of files from the pool's
 * shared counter until none is left, returning each batch's symbol tables as it finishes
 * (never trees: those live in this worker's wasm heap).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { GrammarMismatchError, loadPythonParser } from './grammar.js';
import { type ScanOptions, scanFile } from './scan-file.js';
import { type PoolReply, type PoolWork, claimBatch } from './pool.js';

const port = parentPort;
if (!port) throw new Error('engine/verify/worker.ts must run as a worker thread');
const { wasmPath, options, work } = workerData as { wasmPath: string; options: ScanOptions; work: PoolWork };

try {
  const parser = await loadPythonParser(wasmPath);
  const bodies = new Set(options.bodies);
  port.postMessage({ type: 'ready' } satisfies PoolReply);
  const batches = Math.ceil(work.files.length / work.batchSize);
  for (let batch = claimBatch(work.next); batch < batches; batch = claimBatch(work.next)) {
    const scans = work.files.slice(batch * work.batchSize, (batch + 1) * work.batchSize).map((f) => scanFile(parser, f.absolute, f.file, options, bodies));
    port.postMessage({ type: 'scans', batch, scans } satisfies PoolReply);
  }
  parser.delete();
} catch (error) {
  if (!(error instanceof GrammarMismatchError)) throw error;
  port.postMessage({ type: 'grammar', diagnostic: error.diagnostic } satisfies PoolReply);
}
