/**
 * Gate-run specs: registries copied into temporary folders (a run records into its copy, never
 * into the embedded registry), the test-only broken Manager as a launcher, and wheels rewritten
 * to carry a defect.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateAdapters, readZip, writeZip } from '../../generators/index.js';
import type { ManagerLauncher } from '../../engine/gates/harness/index.js';
import { loadRegistry, type Registry } from '../../engine/registry/index.js';

export const REPO = join(import.meta.dirname, '..', '..');
const cleanups: (() => void)[] = [];
after(() => {
  for (const c of cleanups.splice(0)) c();
});

export function tempDir(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `okv-gates-spec-${name}-`));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A copy of a registry folder (the embedded one by default), loaded. */
export function copyRegistry(from = join(REPO, 'contracts'), edit?: (dir: string) => void): Registry {
  const dir = join(tempDir('registry'), 'registry');
  cpSync(from, dir, { recursive: true, filter: (src) => !src.includes('.orbitkv-cache') });
  edit?.(dir);
  return loadRegistry(dir).registry;
}

/** `orbitkv serve` with one lifecycle broken on purpose (`spec/gates/broken-manager.ts`). */
export function brokenManager(name: string): ManagerLauncher {
  return { command: process.execPath, args: ['--import', 'tsx', join(REPO, 'spec', 'gates', 'broken-manager.ts')], env: { OKV_BREAK: name } };
}

/** The registry's adapters generated into a folder, with one wheel's members rewritten by `edit`. */
export function brokenAdapters(registry: Registry, wheelPrefix: string, edit: (members: { name: string; bytes: Buffer }[]) => { name: string; bytes: Buffer }[]): string {
  const out = join(tempDir('adapters'), 'adapters');
  generateAdapters(registry, { outDir: out, wheel: true });
  const manifest = JSON.parse(readFileSync(join(out, 'MANIFEST.json'), 'utf8')) as { files: Record<string, string> };
  const wheel = Object.keys(manifest.files).find((f) => f.startsWith(`wheels/${wheelPrefix}`));
  if (!wheel) throw new Error(`no wheel ${wheelPrefix}`);
  const path = join(out, wheel);
  writeFileSync(path, writeZip(edit(readZip(readFileSync(path)))));
  return out;
}
