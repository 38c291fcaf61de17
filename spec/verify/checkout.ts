/**
 * Fixture checkouts for the verify specs: a pinned engine tree from `spec/fixtures/engines/`,
 * optionally with a drifted overlay, copied into a temporary folder the spec may change.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadRegistry } from '../../engine/registry/index.js';
import type { Registry } from '../../engine/registry/index.js';

const here = dirname(fileURLToPath(import.meta.url));
export const ENGINE_FIXTURES = resolve(here, '../fixtures/engines');
export const REPO = resolve(here, '../..');

let embedded: Registry | undefined;
/** The embedded OrbitKV registry (`contracts/`), loaded once. */
export function embeddedRegistry(): Registry {
  if (!embedded) {
    const { registry, diagnostics } = loadRegistry(join(REPO, 'contracts'));
    if (diagnostics.some((d) => d.severity === 'error')) throw new Error(`embedded registry does not load: ${diagnostics.map((d) => d.code).join(', ')}`);
    embedded = registry;
  }
  return embedded;
}

/** Temporary folders made by this spec run, removed by `removeCheckouts()`. */
const made: string[] = [];

export function scratchDir(prefix = 'okv-verify-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** A copy of `pinned` (e.g. `vllm-0.31.0`) with `drift/<overlay>` laid over it. */
export function checkout(pinned: string, overlay?: string): string {
  const dir = join(scratchDir(), pinned);
  cpSync(join(ENGINE_FIXTURES, pinned), dir, { recursive: true });
  if (overlay) {
    const from = join(ENGINE_FIXTURES, 'drift', overlay);
    if (!existsSync(from)) throw new Error(`no drift overlay ${overlay}`);
    cpSync(from, dir, { recursive: true, force: true });
  }
  return dir;
}

/** Writes files (path → text or bytes) under `root`, creating folders. */
export function writeTree(root: string, files: Record<string, string | Buffer>): string {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

export function removeCheckouts(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}
