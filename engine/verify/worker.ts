/**
 * Scan worker: loads the pinned grammar once, then parses the batches of files the pool sends
 * and returns their symbol tables (never trees: those live in this worker's wasm heap).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { GrammarMismatchError, loadPythonParser } from './grammar.js';
import { type ScanOptions, scanFile } from './scan-file.js';
import type { PoolReply, PoolRequest } from './pool.js';

const port = parentPort;
if (!port) throw new Error('engine/verify/worker.ts must run as a worker thread');
const { wasmPath, options } = workerData as { wasmPath: string; options: ScanOptions };

try {
  const parser = await loadPythonParser(wasmPath);
  const bodies = new Set(options.bodies);
  port.on('message', (request: PoolRequest) => {
    const scans = request.files.map((f) => scanFile(parser, f.absolute, f.file, options, bodies));
    port.postMessage({ type: 'scans', batch: request.batch, scans } satisfies PoolReply);
  });
  port.postMessage({ type: 'ready' } satisfies PoolReply);
} catch (error) {
  if (!(error instanceof GrammarMismatchError)) throw error;
  port.postMessage({ type: 'grammar', diagnostic: error.diagnostic } satisfies PoolReply);
}
