import { createHash } from 'node:crypto';
import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readFileSync, readSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PINNED_GRAMMAR, pythonWasmPath } from './grammar.js';
import type { ScanTarget } from './pool.js';
import type { ScanOptions } from './scan-file.js';
import type { FileScan } from './table.js';

/**
 * The modules whose code decides what a symbol table holds: an edit to any of them (or another
 * grammar build) gives another cache key, so a table is never reused across extractor versions.
 */
const EXTRACTOR_MODULES = ['extract', 'function-body', 'table', 'scan-file', 'grammar', 'scan-cache'];
/** Tables are spread over this many shard files (by the first two hex digits of the content hash): one changed file rewrites one shard. */
const SHARD_DIGITS = 2;
/** At most this many tables per shard (about 64 k in all); the ones this run did not use go first. */
const MAX_PER_SHARD = 256;
/** Cache keys (extractor versions, scan options) kept side by side; older folders are removed. */
const MAX_KEYS = 4;

/** A cached table: a scan without its path (the same content may sit at several paths). */
type CachedScan = Omit<FileScan, 'file'>;

let extractorHash: string | undefined;

/** sha256 over the extractor's source and the grammar's wasm: what the cached tables were made by. */
export function extractorCodeHash(): string {
  if (extractorHash === undefined) {
    const self = fileURLToPath(import.meta.url);
    const ext = self.slice(self.lastIndexOf('.'));
    const hash = createHash('sha256').update(JSON.stringify(PINNED_GRAMMAR));
    for (const name of EXTRACTOR_MODULES) {
      const file = join(dirname(self), `${name}${ext}`);
      // bundled builds have one file: then that file is the code
      hash.update(name).update(existsSync(file) ? readFileSync(file) : readFileSync(self));
    }
    hash.update(readFileSync(pythonWasmPath()));
    extractorHash = hash.digest('hex');
  }
  return extractorHash;
}

/** The cache key: extractor code plus every scan option that changes a table. */
export function scanCacheKey(options: ScanOptions): string {
  return createHash('sha256').update(extractorCodeHash()).update(JSON.stringify({ maxFileBytes: options.maxFileBytes, needles: [...options.needles].sort(), bodies: [...options.bodies].sort() })).digest('hex').slice(0, 32);
}

/** sha256 of a file's bytes, or undefined when it cannot be read or is over the cap (the scanner reports those). */
function contentHash(path: string, maxBytes: number): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const size = fstatSync(fd).size;
    if (size > maxBytes) return undefined;
    const bytes = Buffer.allocUnsafe(size);
    let done = 0;
    while (done < size) {
      const n = readSync(fd, bytes, done, size - done, done);
      if (n === 0) break;
      done += n;
    }
    return createHash('sha256').update(bytes.subarray(0, done)).digest('hex');
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** What a cached scan did: how many tables came from disk and how many files were parsed. */
export interface ScanCacheStats {
  reused: number;
  parsed: number;
}

/**
 * A disposable on-disk cache of symbol tables, keyed by each file's content hash under a key of
 * the extractor code and scan options. A table depends only on the bytes and that key, so a hit
 * is the table a fresh parse would give; anything unreadable in the cache is ignored and
 * rewritten, never trusted.
 */
export class ScanCache {
  private readonly folder: string;
  private readonly shards = new Map<string, Map<string, CachedScan>>();
  private readonly used = new Set<string>();
  private readonly dirty = new Set<string>();

  constructor(root: string, readonly key: string) {
    this.folder = join(root, key);
  }

  private shard(sha: string): Map<string, CachedScan> {
    const name = sha.slice(0, SHARD_DIGITS);
    let shard = this.shards.get(name);
    if (!shard) {
      shard = new Map();
      try {
        const parsed = JSON.parse(readFileSync(join(this.folder, `${name}.json`), 'utf8')) as { key?: string; tables?: Record<string, CachedScan> };
        if (parsed.key === this.key && parsed.tables && typeof parsed.tables === 'object') for (const [k, v] of Object.entries(parsed.tables)) if (k.startsWith(name) && v?.sha256 === k) shard.set(k, v);
      } catch {
        // missing or damaged: start the shard empty (it is rewritten when something is stored)
      }
      this.shards.set(name, shard);
    }
    return shard;
  }

  /** True when nothing was stored under this key yet: a first run need not hash files to look them up. */
  empty(): boolean {
    try {
      return !readdirSync(this.folder).some((n) => n.endsWith('.json'));
    } catch {
      return true;
    }
  }

  get(sha: string, file: string): FileScan | undefined {
    const hit = this.shard(sha).get(sha);
    if (!hit) return undefined;
    this.used.add(sha);
    return { file, ...hit };
  }

  put(scan: FileScan): void {
    if (scan.status !== 'parsed' || !scan.sha256) return;
    const { file: _file, ...table } = scan;
    const shard = this.shard(scan.sha256);
    this.used.add(scan.sha256);
    if (shard.has(scan.sha256)) return;
    shard.set(scan.sha256, table);
    this.dirty.add(scan.sha256.slice(0, SHARD_DIGITS));
  }

  /** Writes the changed shards (each atomically), bounded; drops the oldest other keys' folders. */
  flush(): void {
    if (this.dirty.size === 0) return;
    mkdirSync(this.folder, { recursive: true });
    for (const name of this.dirty) {
      const shard = this.shards.get(name)!;
      const entries = [...shard.entries()];
      // tables this run used are kept first; the bound is per shard
      const kept = [...entries.filter(([k]) => this.used.has(k)), ...entries.filter(([k]) => !this.used.has(k))].slice(0, MAX_PER_SHARD);
      const path = join(this.folder, `${name}.json`);
      const tmp = `${path}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify({ key: this.key, tables: Object.fromEntries(kept) }));
      renameSync(tmp, path);
    }
    this.dirty.clear();
    const root = dirname(this.folder);
    const others = readdirSync(root).filter((n) => join(root, n) !== this.folder && /^[0-9a-f]{32}$/.test(n)).map((n) => ({ n, at: statSync(join(root, n)).mtimeMs })).sort((a, b) => b.at - a.at);
    for (const old of others.slice(MAX_KEYS - 1)) rmSync(join(root, old.n), { recursive: true, force: true });
  }
}

/**
 * Splits the files into those whose table the cache holds (returned as scans, keyed by index)
 * and those to parse.
 */
export function lookupScans(cache: ScanCache, files: readonly ScanTarget[], maxBytes: number): { hits: Map<number, FileScan>; misses: number[] } {
  const hits = new Map<number, FileScan>();
  const misses: number[] = [];
  // the scanner hashes what it reads: an empty cache has nothing to look up
  if (cache.empty()) return { hits, misses: files.map((_, i) => i) };
  files.forEach((f, i) => {
    const sha = contentHash(f.absolute, maxBytes);
    const hit = sha === undefined ? undefined : cache.get(sha, f.file);
    if (hit) hits.set(i, hit);
    else misses.push(i);
  });
  return { hits, misses };
}
