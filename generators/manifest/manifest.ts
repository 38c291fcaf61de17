import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, realpathSync, rmdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, posix, relative, sep } from 'node:path';
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

/**
 * Whether a path read from a manifest names a file inside the output folder: relative, in
 * normal form (no `.`, `..`, empty or backslash segments), and not reached through a symbolic
 * link that leaves the folder. The manifest is a file on disk like any other: anyone can edit it.
 */
export function insideOutput(outDir: string, rel: string): boolean {
  if (rel === '' || rel.includes('\0') || rel.includes('\\') || isAbsolute(rel) || posix.isAbsolute(rel)) return false;
  if (rel.split('/').some((s) => s === '' || s === '.' || s === '..')) return false;
  let root: string;
  try {
    root = realpathSync(outDir);
  } catch {
    return true; // no output folder yet: nothing on disk can be reached through it
  }
  // The deepest folder of the path that exists, resolved through its links, stays under the output folder.
  let dir = dirname(join(outDir, rel));
  while (!existsSync(dir) && dir !== dirname(dir)) dir = dirname(dir);
  let real: string;
  try {
    real = realpathSync(dir);
  } catch {
    return false;
  }
  const up = relative(root, real);
  return up === '' || (!up.startsWith(`..${sep}`) && up !== '..' && !isAbsolute(up));
}

/** The previous run's manifest entries (empty when there is none or it is unreadable), and the entries refused (OKV5011). */
export function readManifest(outDir: string): { entries: Map<string, string>; refused: Diagnostic[] } {
  const entries = new Map<string, string>();
  const refused: Diagnostic[] = [];
  let doc: { files?: Record<string, unknown> };
  try {
    doc = JSON.parse(readFileSync(join(outDir, MANIFEST_NAME), 'utf8')) as { files?: Record<string, unknown> };
  } catch {
    return { entries, refused };
  }
  const files = doc && typeof doc.files === 'object' && doc.files !== null && !Array.isArray(doc.files) ? doc.files : {};
  for (const [rel, hash] of Object.entries(files)) {
    if (typeof hash !== 'string') continue;
    if (!insideOutput(outDir, rel)) refused.push(diagnose('manifestPathOutside', { file: join(outDir, MANIFEST_NAME) }, JSON.stringify(rel)));
    else entries.set(rel, hash);
  }
  return { entries, refused };
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
  const { entries: previous, refused } = readManifest(outDir);
  const drift: Diagnostic[] = [...refused];
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
  /** Manifest entries that name no file inside the output folder (OKV5011): errors. */
  refused: Diagnostic[];
}

/**
 * Writes the files that changed and removes stale files of the previous manifest (only when
 * unmodified: a hand-edited stale file is kept and reported). `dryRun` computes the same
 * lists and touches nothing.
 */
export function writeGenerated(outDir: string, files: readonly GeneratedFile[], dryRun: boolean): WriteResult {
  const { entries: previous, refused } = readManifest(outDir);
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
    // Only a regular file is removed (never a link, whose target may be anywhere, nor a folder).
    if (!isRegularFile(path)) continue;
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
  return { written, removed, kept, refused };
}

function isRegularFile(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}

function pruneEmpty(root: string, dir: string): void {
  while (dir.startsWith(root) && dir !== root) {
    if (readdirSync(dir).length > 0) return;
    rmdirSync(dir);
    dir = dirname(dir);
  }
}
