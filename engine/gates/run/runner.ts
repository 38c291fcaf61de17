/**
 * `gate run`: plans the gates, prepares the adapters under test (generated into a temporary
 * folder), hashes the inputs, runs every runnable cell against real Manager processes and
 * engine stand-ins (gates in parallel up to `jobs`, the cells of one gate in order, sharing its
 * Managers), and hashes the inputs again. Recording is a separate step (`record.ts`).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { diagnose, type Diagnostic } from '../../diagnostics/index.js';
import type { Registry } from '../../registry/index.js';
import { ManagerPool, openWorkspace, runCell, type Check, type ManagerLauncher, type Workspace } from '../harness/index.js';
import { loadRejectionChecks } from '../../runtime/handshake/index.js';
import { inputDigests, type InputDigests } from './inputs.js';
import { planGates, type PlannedGate } from './plan.js';
import type { Progress } from './progress.js';

export interface CellOutcome {
  gate: string;
  cell: string;
  values: Record<string, string>;
  status: 'pass' | 'fail' | 'skip';
  /** The engines whose adapters it exercised (none for a cell that did not run). */
  engines: string[];
  /** Why a skipped cell did not run. */
  skip?: string;
  checks: Check[];
  error?: string;
  ms: number;
}

export interface GateRunResult {
  cells: CellOutcome[];
  before: InputDigests | null;
  after: InputDigests | null;
  /** sha256 of the generated adapter manifest: the profile's adapter hash. */
  adapter: string | null;
  /** The engines the run generated adapters for (a cell that exercised none is bound to them all). */
  adapterEngines: string[];
  /** Where the run ran, as the records say it. */
  place: string;
  diagnostics: Diagnostic[];
  ms: number;
}

export interface GateRunOptions {
  registry: Registry;
  ids: readonly string[] | 'all';
  jobs?: number;
  python?: string;
  launcher?: ManagerLauncher;
  /** Use these generated adapters instead of generating (a spec that breaks one on purpose). */
  adaptersDir?: string;
  progress?: Progress;
  /** Runs only the cells it accepts (the others are listed as skipped: not selected). */
  cells?: (gate: string, cell: string) => boolean;
}

/** The interpreter's version and its real executable (a launcher shim such as pyenv's costs a shell per start). */
function pythonInterpreter(python: string): { version: string; executable: string } | { problem: string } {
  const r = spawnSync(python, ['-c', 'import sys; print("%d.%d.%d" % sys.version_info[:3]); print(sys.executable)'], { encoding: 'utf8', timeout: 10_000 });
  if (r.error) return { problem: (r.error as NodeJS.ErrnoException).code ?? r.error.message };
  if (r.status !== 0) return { problem: r.stderr.trim() || `exit ${r.status}` };
  const [v = '', executable = ''] = r.stdout.trim().split('\n');
  const [major, minor] = v.split('.').map(Number);
  if (major! < 3 || (major === 3 && minor! < 8)) return { problem: `found ${v}` };
  return { version: v, executable: executable || python };
}

export async function runGates(o: GateRunOptions): Promise<GateRunResult> {
  const started = Date.now();
  const planned = planGates(o.registry, o.ids);
  const { diagnostics } = planned;
  const gates = planned.gates.map((g) => {
    if (!o.cells || g.skip !== null) return g;
    const chosen = g.cells.filter((c) => o.cells!(g.gate.id, c.key));
    return chosen.length === 0 ? { ...g, skip: 'not selected' } : { ...g, cells: chosen };
  });
  const skipped = (g: PlannedGate): CellOutcome[] => g.cells.map((c) => ({ gate: g.gate.id, cell: c.key, values: c.values, status: 'skip', engines: [], skip: g.skip!, checks: [], ms: 0 }));
  const runnable = gates.filter((g) => g.skip === null);
  const base = { before: null, after: null, adapter: null, adapterEngines: [], place: '', diagnostics };
  if (diagnostics.length > 0) return { ...base, cells: [], ms: Date.now() - started };
  if (runnable.length === 0) return { ...base, cells: gates.flatMap(skipped), ms: Date.now() - started };
  const python = o.python ?? process.env['ORBITKV_PYTHON'] ?? 'python3';
  const interpreter = pythonInterpreter(python);
  if ('problem' in interpreter) return { ...base, cells: [], diagnostics: [diagnose('gateRunPython', {}, python, interpreter.problem)], ms: Date.now() - started };
  const version = interpreter.version;
  const ws = openWorkspace(o.registry, { python: interpreter.executable, ...(o.launcher ? { launcher: o.launcher } : {}), ...(o.adaptersDir ? { adaptersDir: o.adaptersDir } : {}) });
  if ('problem' in ws) return { ...base, cells: [], diagnostics: [diagnose('gateRunWorkspace', {}, ws.problem)], ms: Date.now() - started };
  try {
    const before = inputDigests(o.registry.root, ws.manifest);
    const adapter = createHash('sha256').update(readFileSync(ws.manifest)).digest('hex');
    const place = `stand-in engine on a CPU: Python ${version} driving the generated ${ws.adapters.map((a) => `${a.importName}/_client.py`).join(' and ')}, against orbitkv serve (DRAM tier, SSD tier in a temporary folder) on ${process.platform}/${process.arch}`;
    const checks = await loadRejectionChecks(o.registry);
    const accepts = (profile: unknown) => checks.evaluate(profile).accepted;
    const results = new Map<PlannedGate, CellOutcome[]>();
    // Each worker keeps its Managers (one per spec) across the gates it runs: starting a Manager
    // is the slowest step, so gates whose scenarios share a spec go to the same worker; a worker
    // runs one cell at a time, so no cell sees another's work on its Manager.
    const bins = partition(runnable, Math.max(1, Math.min(o.jobs ?? 2, runnable.length)));
    await Promise.all(bins.map(async (bin) => {
      const pool = new ManagerPool(ws);
      try {
        for (const g of bin) results.set(g, await runGate(g, ws, pool, accepts, o.progress));
      } finally {
        await pool.stop();
      }
    }));
    const after = inputDigests(o.registry.root, ws.manifest);
    const cells = gates.flatMap((g) => (g.skip === null ? results.get(g)! : skipped(g)));
    const adapterEngines = [...new Set(ws.adapters.map((a) => a.engine))].sort();
    return { cells, before, after, adapter, adapterEngines, place, diagnostics, ms: Date.now() - started };
  } finally {
    ws.dispose();
  }
}

/** Gates grouped by their scenario's Manager spec, groups dealt to `n` bins, largest first, to the lightest bin. */
export function partition(gates: readonly PlannedGate[], n: number): PlannedGate[][] {
  const groups = new Map<string, PlannedGate[]>();
  for (const g of gates) {
    const key = g.manager === undefined ? `unknown:${g.gate.id}` : JSON.stringify(g.manager);
    groups.set(key, [...(groups.get(key) ?? []), g]);
  }
  // A group costs its cells plus a Manager start (none for a scenario without a Manager).
  const weight = (list: PlannedGate[]) => list.reduce((w, g) => w + g.cells.length, 0) + (list[0]!.manager === null ? 0 : 3);
  const bins = Array.from({ length: n }, () => ({ gates: [] as PlannedGate[], weight: 0 }));
  for (const list of [...groups.values()].sort((a, b) => weight(b) - weight(a))) {
    const bin = bins.reduce((a, b) => (b.weight < a.weight ? b : a));
    bin.gates.push(...list);
    bin.weight += weight(list);
  }
  return bins.map((b) => b.gates).filter((b) => b.length > 0);
}

async function runGate(g: PlannedGate, ws: Workspace, pool: ManagerPool, accepts: (profile: unknown) => boolean, progress: Progress | undefined): Promise<CellOutcome[]> {
  const out: CellOutcome[] = [];
  {
    let run;
    try {
      run = await g.load!();
    } catch (error) {
      return g.cells.map((c) => ({ gate: g.gate.id, cell: c.key, values: c.values, status: 'fail', engines: [], checks: [], error: `the scenario could not be loaded: ${(error as Error).message}`, ms: 0 }));
    }
    for (const c of g.cells) {
      const label = `${g.gate.id} [${c.key}]`;
      progress?.started(label);
      const v = await runCell(run, { gate: g.gate.id, cell: c.values, params: c.params, workspace: ws, pool, accepts, ...(g.manager ? { managerSpec: g.manager } : {}) });
      progress?.finished(label);
      out.push({ gate: g.gate.id, cell: c.key, values: c.values, status: v.pass ? 'pass' : 'fail', engines: v.engines, checks: v.checks, ...(v.error !== undefined ? { error: v.error } : {}), ms: v.ms });
    }
  }
  return out;
}
