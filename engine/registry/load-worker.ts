import { parentPort, workerData } from 'node:worker_threads';
import type { Diagnostic } from '../diagnostics/index.js';
import { loadContractFile } from './load-file.js';
import type { RefusedContract } from './registry.js';

/** What a load worker sends back per file, in the order it was given the files. */
export interface LoadedFile {
  path: string;
  file?: string;
  /** Where the file's UTF-8 text is in its batch's `bytes`: offset and length. */
  text?: [number, number];
  contract?: unknown;
  /** A contract that failed the schema: what it says it is (see `Registry.refused`). */
  refused?: RefusedContract;
  diagnostics: Diagnostic[];
}

/**
 * One message: a batch of files and their texts as one buffer. The buffer is transferred, not
 * copied; the receiver decodes a text only when something reads it.
 */
export interface LoadedBatch {
  files: LoadedFile[];
  bytes: ArrayBuffer;
}

/** Input of a load worker: the registry root and its slice of files. */
export interface LoadWorkerInput {
  root: string;
  paths: string[];
}

/** Files per message: results leave the worker as they are made instead of piling up in its heap. */
const BATCH = 64;

// A worker of `loadRegistryParallel`: loads its slice and posts plain data (no YAML documents)
// in batches, then `null` when done.
if (parentPort) {
  const port = parentPort;
  const { root, paths } = workerData as LoadWorkerInput;
  let batch: LoadedFile[] = [];
  let texts: Buffer[] = [];
  let size = 0;
  const flush = () => {
    const bytes = Buffer.concat(texts, size);
    // A fresh, exactly sized ArrayBuffer that can be transferred (Buffer.concat may pool small ones).
    const owned = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) as ArrayBuffer;
    const message: LoadedBatch = { files: batch, bytes: owned };
    port.postMessage(message, [owned]);
    batch = [];
    texts = [];
    size = 0;
  };
  for (const path of paths) {
    const diagnostics: Diagnostic[] = [];
    const refused: RefusedContract[] = [];
    const entry = loadContractFile(root, path, diagnostics, refused);
    if (entry) {
      const encoded = Buffer.from(entry.source.text, 'utf8');
      batch.push({ path, file: entry.source.file, text: [size, encoded.length], contract: entry.contract, diagnostics });
      texts.push(encoded);
      size += encoded.length;
    } else batch.push({ path, diagnostics, ...(refused[0] ? { refused: refused[0] } : {}) });
    if (batch.length === BATCH) flush();
  }
  if (batch.length > 0) flush();
  port.postMessage(null);
}
