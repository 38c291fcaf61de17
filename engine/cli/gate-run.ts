/**
 * The body of `orbitkv gate run`, shared with `orbitkv start` (the main job runs the CPU gates
 * too): load the registry, run, report, record.
 */
import { diagnose, formatDiagnostics, type Diagnostic } from '../diagnostics/index.js';
import { createProgress, progressEnabled, recordResults, renderJson, renderText, runGates, type GateRunResult, type RecordOutcome } from '../gates/run/index.js';
import { loadRegistry, resolveRegistryDir, validateRegistry, type Registry } from '../registry/index.js';
import { type CliIo, EXIT } from './io.js';

export interface GateCommandOptions {
  ids: readonly string[] | 'all';
  record: boolean;
  format: 'text' | 'json';
  registry: string | undefined;
  jobs: number;
  actor: string;
}

export async function runGateCommand(io: CliIo, o: GateCommandOptions): Promise<number> {
  const dir = resolveRegistryDir(io.cwd, o.registry);
  const { registry, diagnostics } = loadRegistry(dir);
  const errors = [...diagnostics, ...validateRegistry(registry, { today: new Date().toISOString().slice(0, 10) })].filter((d) => d.severity === 'error');
  if (errors.length > 0) {
    io.err(formatDiagnostics([diagnose('registryUnloadable', {}, dir, errors.length)], { format: 'text', root: io.cwd, cwd: io.cwd }));
    return EXIT.failed;
  }
  const { run, recorded } = await gateRun(io, registry, o);
  io.out(o.format === 'json' ? renderJson(run, recorded) : renderText(run, recorded));
  const shown: Diagnostic[] = [...run.diagnostics, ...(recorded?.diagnostics ?? [])];
  if (shown.length > 0 && o.format === 'text') io.err(formatDiagnostics(shown, { format: 'text', root: registry.root, cwd: io.cwd }));
  const ran = run.cells.filter((c) => c.status !== 'skip');
  const failed = run.diagnostics.some((d) => d.severity === 'error') || ran.some((c) => c.status === 'fail') || (recorded?.diagnostics.some((d) => d.severity === 'error') ?? false);
  return failed || ran.length === 0 ? EXIT.failed : EXIT.ok;
}

/** Runs the gates with progress on a terminal and records them when asked. */
export async function gateRun(io: CliIo, registry: Registry, o: Omit<GateCommandOptions, 'format' | 'registry'>): Promise<{ run: GateRunResult; recorded: RecordOutcome | null }> {
  const stderr = process.stderr as unknown as { isTTY?: boolean; columns?: number };
  const stream = { isTTY: io.isTty && stderr.isTTY === true, ...(stderr.columns !== undefined ? { columns: stderr.columns } : {}), write: (t: string) => io.err(t) };
  const { planGates } = await import('../gates/run/index.js');
  const total = planGates(registry, o.ids).gates.filter((g) => g.skip === null).reduce((n, g) => n + g.cells.length, 0);
  const progress = createProgress(total, stream, progressEnabled(stream, io.env));
  let run: GateRunResult;
  try {
    run = await runGates({ registry, ids: o.ids, jobs: o.jobs, progress });
  } finally {
    progress.end();
  }
  const now = io.env['ORBITKV_NOW'] !== undefined ? Date.parse(io.env['ORBITKV_NOW']) : undefined;
  const recorded = o.record ? recordResults(run, { registry, actor: o.actor, cwd: io.cwd, env: io.env, ...(now !== undefined && !Number.isNaN(now) ? { now } : {}) }) : null;
  return { run, recorded };
}
