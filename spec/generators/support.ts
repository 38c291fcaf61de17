/**
 * Shared by the generator specs: the embedded registry generated once (with wheels) into a
 * temporary folder, one fresh venv with both wheels installed (created once per mocha run),
 * and a Python runner. Everything is removed when the process exits.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadRegistry, type Registry } from '../../engine/registry/index.js';
import { REJECTIONS_PY, generateAdapters, pyJsonExpression, type RejectionTable } from '../../generators/index.js';

export const REPO = resolve(import.meta.dirname, '..', '..');
export const PYTHON = process.env.ORBITKV_TEST_PYTHON ?? 'python3';

const temps: string[] = [];
process.on('exit', () => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

/** A temporary folder removed at exit. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `orbitkv-${prefix}-`));
  temps.push(dir);
  return dir;
}

export function registryAt(dir: string): Registry {
  const { registry, diagnostics } = loadRegistry(dir);
  const errors = diagnostics.filter((d) => d.severity === 'error');
  if (errors.length) throw new Error(`registry ${dir} does not load: ${JSON.stringify(errors)}`);
  return registry;
}

let embedded: Registry | undefined;
export function embeddedRegistry(): Registry {
  return (embedded ??= registryAt(join(REPO, 'contracts')));
}

let generated: string | undefined;
/** The embedded registry generated (with wheels) into a temporary folder, once. */
export function generatedOnce(): string {
  if (!generated) {
    const dir = tempDir('generated');
    const result = generateAdapters(embeddedRegistry(), { outDir: dir, wheel: true });
    if (result.diagnostics.some((d) => d.severity === 'error')) throw new Error(JSON.stringify(result.diagnostics));
    generated = dir;
  }
  return generated;
}

/** The generated package source roots (`<out>/orbitkv-vllm`, ...). */
export function packageRoots(out: string): string[] {
  return readdirSync(out, { withFileTypes: true })
    .filter((e) => e.isDirectory() && e.name !== 'wheels' && e.name !== 'typescript')
    .map((e) => join(out, e.name))
    .sort();
}

export function python(args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string; executable?: string; input?: string } = {}): SpawnSyncReturns<string> {
  return spawnSync(options.executable ?? PYTHON, args, {
    cwd: options.cwd ?? REPO,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PYTHONDONTWRITEBYTECODE: '1', ...options.env },
    encoding: 'utf8',
    input: options.input,
    timeout: 120_000,
  });
}

/** Runs a stdlib unittest file of `spec/generators/python/`; throws with its output when it fails. */
export function unittest(file: string, env: NodeJS.ProcessEnv): string {
  const r = python(['-m', 'unittest', '-v', join(REPO, 'spec', 'generators', 'python', file)], { env });
  if (r.status !== 0) throw new Error(`python unittest ${file} exited ${r.status ?? r.signal}\n${r.stdout}\n${r.stderr}`);
  return r.stderr;
}

/** A minimal importable package holding only the rejection checks of a table (for registries without adapters). */
export function checksPackage(table: RejectionTable, name = 'demo_checks'): string {
  const root = tempDir('checks');
  mkdirSync(join(root, name));
  writeFileSync(join(root, name, '__init__.py'), '');
  writeFileSync(join(root, name, '_data.py'), `import json\n\nDATA = ${pyJsonExpression(table)}\n`);
  writeFileSync(join(root, name, 'rejections.py'), REJECTIONS_PY);
  return root;
}

let venv: string | undefined;
/** A fresh venv with both generated wheels installed by `pip install --no-index`; returns its python. */
export function venvOnce(): string {
  if (!venv) {
    const dir = tempDir('venv');
    const create = spawnSync(PYTHON, ['-m', 'venv', dir], { encoding: 'utf8' });
    if (create.status !== 0) throw new Error(`python3 -m venv failed (is python3-venv installed?)\n${create.stderr}`);
    const exe = join(dir, 'bin', 'python');
    const wheels = join(generatedOnce(), 'wheels');
    const files = readdirSync(wheels).map((f) => join(wheels, f));
    const install = spawnSync(exe, ['-m', 'pip', 'install', '--no-index', '--no-cache-dir', '--disable-pip-version-check', '-q', ...files], { encoding: 'utf8' });
    if (install.status !== 0) throw new Error(`pip install --no-index failed\n${install.stdout}\n${install.stderr}`);
    venv = exe;
  }
  return venv;
}

/**
 * A copy of the embedded registry in which one hook contract's text from `from` to its end is
 * replaced by `tail` (a hook kept, retargeted or retyped); returns the folder.
 */
export function registryWithHook(file: string, from: string, tail: string): string {
  const dir = join(tempDir('hook-edit'), 'registry');
  cpSync(join(REPO, 'contracts'), dir, { recursive: true });
  const path = join(dir, 'hooks', file);
  const text = readFileSync(path, 'utf8');
  const at = text.indexOf(from);
  if (at < 0) throw new Error(`${from} not in ${file}`);
  writeFileSync(path, text.slice(0, at) + tail);
  return dir;
}

/** The embedded registry with the retired scheduler abort hook kept again (the abort role's body installed). */
export function registryWithAbortHook(): string {
  return registryWithHook(
    'hook.sglang.scheduler-abort.yaml',
    'activation:',
    `activation:
  mode: always
replacement:
  status: none
  needed: A released abort path that drains started restores before the tree frees the request's pages.
removalGate:
  upstream:
    - requires: A released abort drain on the 0.5 line, consumed by the adapter
  gates:
    - gate.runtime.restore-cancellation
disposition:
  state: kept
  reason: Kept to drain restores before the tree releases an aborted request's pages.
implementation: orbitkv_sglang.hooks.around_release_aborted_request
`,
  );
}
