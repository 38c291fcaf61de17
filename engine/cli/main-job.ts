/**
 * `orbitkv start`: the main job. The first three steps are `orbitkv check`'s; then the CPU gates
 * run on a temporary copy of the registry and record there, and the copy's board is printed
 * with the rows the results moved.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { formatDiagnostics } from '../diagnostics/index.js';
import { renderText } from '../gates/run/index.js';
import { cacheDirFor, ledgerFiles, loadBoard, renderBoard, type Board } from '../lifecycle/index.js';
import { errorCount, sortDiagnostics } from '../diagnostics/index.js';
import { generationBlockers, loadRegistry, resolveRegistryDir, validateRegistry } from '../registry/index.js';
import { gateRun } from './gate-run.js';
import { type CliIo, EXIT } from './io.js';

export interface MainJobOptions {
  registry: string | undefined;
  out: string | undefined;
  jobs: number;
  keep: string | undefined;
}

const states = (b: Board) => new Map(b.rows.map((r) => [r.id, r.state]));

export async function runMainJob(io: CliIo, o: MainJobOptions): Promise<number> {
  const started = Date.now();
  const step = (name: string) => io.out(`\n== ${name} (${((Date.now() - started) / 1000).toFixed(1)}s)\n`);
  const dir = resolveRegistryDir(io.cwd, o.registry);
  const { registry, diagnostics: loading } = loadRegistry(dir);
  const diagnostics = sortDiagnostics([...loading, ...validateRegistry(registry, { today: new Date().toISOString().slice(0, 10) })]);
  io.out(`== validate: ${registry.root}\n`);
  io.out(formatDiagnostics(diagnostics, { format: 'text', root: registry.root, cwd: io.cwd, contracts: registry.entries.length, color: false }));
  if (generationBlockers(diagnostics).length > 0) {
    io.out(`\nstart: stopped before generating: ${errorCount(diagnostics)} error(s); fix them and run again\n`);
    return EXIT.failed;
  }
  const { generateAdapters, DEFAULT_OUT_DIR } = await import('../../generators/index.js');
  const outDir = resolve(io.cwd, o.out ?? DEFAULT_OUT_DIR);
  const generated = generateAdapters(registry, { outDir, wheel: true });
  step(`generate: ${outDir}`);
  if (generated.diagnostics.length) io.out(formatDiagnostics(generated.diagnostics, { format: 'text', root: registry.root, cwd: io.cwd }));
  io.out(`${generated.files.length} files (${generated.written.length} written, ${generated.removed.length} stale removed)\n`);
  if (errorCount(generated.diagnostics) > 0) return EXIT.failed;
  const cacheDir = cacheDirFor(io.cwd, io.env);
  const original = loadBoard(registry, ledgerFiles(registry.root), cacheDir !== undefined ? { cacheDir } : {});
  step(`ledger: ${original.loaded.diagnostics.length === 0 ? 'hash chain intact' : `${original.loaded.diagnostics.length} problem(s)`}`);
  if (original.loaded.diagnostics.length) {
    io.out(formatDiagnostics(original.loaded.diagnostics, { format: 'text', root: registry.root, cwd: io.cwd }));
    return EXIT.failed;
  }

  const copyRoot = o.keep !== undefined ? resolve(io.cwd, o.keep) : mkdtempSync(join(tmpdir(), 'okv-start-'));
  const copy = o.keep !== undefined ? copyRoot : join(copyRoot, 'registry');
  try {
    cpSync(registry.root, copy, { recursive: true, filter: (src) => !src.includes('.orbitkv-cache') });
    const copied = loadRegistry(copy).registry;
    step(`gates: every CPU gate on a copy of the registry (${copy})`);
    const before = states(loadBoard(copied, ledgerFiles(copied.root)).board);
    const { run, recorded } = await gateRun(io, copied, { ids: 'all', record: true, jobs: o.jobs, actor: io.env['ORBITKV_ACTOR'] ?? io.env['USER'] ?? 'orbitkv-start' });
    io.out(renderText(run, recorded));
    const problems = [...run.diagnostics, ...(recorded?.diagnostics ?? [])];
    if (problems.length) io.out(formatDiagnostics(problems, { format: 'text', root: copied.root, cwd: io.cwd }));
    const after = loadBoard(copied, ledgerFiles(copied.root)).board;
    step('status (the copy, after the gates)');
    io.out(renderBoard(after, 'text'));
    const moved = after.rows.filter((r) => before.get(r.id) !== r.state);
    io.out(`\nmoved by this run:${moved.length === 0 ? ' nothing' : ''}\n`);
    for (const r of moved) io.out(`  ${r.id.padEnd(40)} ${before.get(r.id) ?? '-'} → ${r.state}\n`);
    io.out(`\nstart: done in ${((Date.now() - started) / 1000).toFixed(1)}s\n`);
    const failed = run.cells.some((c) => c.status === 'fail') || problems.some((d) => d.severity === 'error');
    return failed ? EXIT.failed : EXIT.ok;
  } finally {
    if (o.keep === undefined) rmSync(copyRoot, { recursive: true, force: true });
  }
}
