import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { diagnose, type Diagnostic } from '../../engine/diagnostics/index.js';
import type { GeneratedFile } from '../adapters/index.js';

/** The manifest's file name inside the output folder. */
export const MANIFEST_NAME = 'MANIFEST.json';

export const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/** The manifest file listing every generated file with its sha256 (sorted, LF, no timestamp). */
export function manifestFile(files: readonly GeneratedFile[]): GeneratedFile {
  const entries: Record<string, string> = {};
  for (const f of [...files].sort((a, b) => (a.path < b.path ? -1 : 1))) entries[f.path] = sha256(f.bytes);
  const doc = { generator: 'orbitkv generate', note: 'Generated files and their sha256; do not edit. `orbitkv generate --check` compares them.', files: entries };
  return { path: MANIFEST_NAME, bytes: Buffer.from(`${JSON.stringify(doc, null, 2)}\n`, 'utf8') };
}

/** The previous run's manifest entries (empty when there is none or it is unreadable). */
export function readManifest(outDir: string): Map<string, string> {
  try {
    const doc = JSON.parse(readFileSync(join(outDir, MANIFEST_NAME), 'utf8')) as { files?: Record<string, unknown> };
    return new Map(Object.entries(doc.files ?? {}).filter((e): e is [string, string] => typeof e[1] === 'string'));
  } catch {
    return new Map();
  }
}

function readIfExists(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Files that differ from a fresh generation, were edited by hand, or are stale. */
export function driftOf(outDir: string, files: readonly GeneratedFile[]): Diagnostic[] {
  const previous = readManifest(outDir);
  const drift: Diagnostic[] = [];
  const at = (path: string) => ({ file: join(outDir, path) });
  for (const f of files) {
    const disk = readIfExists(join(outDir, f.path));
    if (disk === undefined) drift.push(diagnose('generatedMissing', at(f.path), f.path));
    else if (!disk.equals(f.bytes)) {
      const recorded = previous.get(f.path);
      drift.push(recorded !== undefined && recorded !== sha256(disk) && f.path !== MANIFEST_NAME ? diagnose('generatedEdited', at(f.path), f.path) : diagnose('generatedOutOfDate', at(f.path), f.path));
    }
  }
  const fresh = new Set(files.map((f) => f.path));
  for (const path of [...previous.keys()].sort()) if (!fresh.has(path) && existsSync(join(outDir, path))) drift.push(diagnose('generatedStale', at(path), path));
  return drift;
}

export interface WriteResult {
  written: string[];
  removed: string[];
  /** Stale files kept because they were edited by hand. */
  kept: Diagnostic[];
}

/**
 * Writes the files that changed and removes stale files of the previous manifest (only when
 * unmodified: a hand-edited stale file is kept and reported). `dryRun` computes the same
 * lists and touches nothing.
 */
export function writeGenerated(outDir: string, files: readonly GeneratedFile[], dryRun: boolean): WriteResult {
  const previous = readManifest(outDir);
  const written: string[] = [];
  for (const f of files) {
    const path = join(outDir, f.path);
    const disk = readIfExists(path);
    if (disk !== undefined && disk.equals(f.bytes)) continue;
    written.push(f.path);
    if (dryRun) continue;
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, f.bytes);
  }
  const fresh = new Set(files.map((f) => f.path));
  const removed: string[] = [];
  const kept: Diagnostic[] = [];
  for (const [rel, hash] of [...previous.entries()].sort()) {
    if (fresh.has(rel)) continue;
    const path = join(outDir, rel);
    const disk = readIfExists(path);
    if (disk === undefined) continue;
    if (sha256(disk) !== hash) {
      kept.push(diagnose('generatedEdited', { file: path }, rel));
      continue;
    }
    removed.push(rel);
    if (!dryRun) {
      unlinkSync(path);
      pruneEmpty(outDir, dirname(path));
    }
  }
  return { written, removed, kept };
}

function pruneEmpty(root: string, dir: string): void {
  while (dir.startsWith(root) && dir !== root) {
    if (readdirSync(dir).length > 0) return;
    rmdirSync(dir);
    dir = dirname(dir);
  }
}
