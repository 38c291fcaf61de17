/**
 * `npm run bench -- verify`: source verification over a generated engine-sized tree: 3,000
 * Python files (about the size of an engine's package: ~18 MB, 6 KB a file), parsed by the worker pool
 * (one worker per CPU) into symbol tables, with a registry that checks hook targets, an
 * interface and gap assertions in it. Target: under 10 s on the development machine.
 * Peer, in the same run: reading the same files (the floor any verifier pays); the ratio says
 * how far above that floor parsing and checking cost. A second row compares the pool with
 * parsing in one thread. Each side runs ORBITKV_BENCH_ROUNDS times (3), in rotating order; medians.
 * The CPU time row says how much work a run is, independent of other load on the machine.
 * The symbol-table cache rows: a first run into an empty cache (target < 5 s), a re-run over the
 * unchanged tree, and a re-run after one file changed (target < 1 s), each against the uncached run.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { loadRegistry } from '../../engine/registry/index.js';
import { verifyEngine } from '../../engine/verify/index.js';
import { costRatio, printReport } from './report.js';

const FILES = Number(process.env['ORBITKV_BENCH_FILES'] ?? 3000);
const ROUNDS = Number(process.env['ORBITKV_BENCH_ROUNDS'] ?? 3);
// ORBITKV_BENCH_FILES changes the tree size; ORBITKV_BENCH_KEEP=1 keeps it afterwards
const root = join(tmpdir(), `okv-verify-bench-${process.pid}`);

/** Deterministic pseudo-random numbers (mulberry32), so every run parses the same tree. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One engine-like module: imports, a few classes with typed, decorated methods, calls, comparisons. */
function moduleSource(i: number, random: () => number): string {
  const pick = (n: number) => Math.floor(random() * n);
  const lines = ['"""Generated module for the verify benchmark."""', 'import logging', 'from typing import Any, Optional', '', `from benchpkg.sub${pick(30)}.mod${pick(100)} import Helper${pick(5)}`, '', 'logger = logging.getLogger(__name__)', `LIMIT_${i} = ${pick(1000)}`, ''];
  const classes = 1 + pick(2);
  for (let c = 0; c < classes; c++) {
    lines.push('', `class Worker${c}(Helper${pick(5)}):`, `    """Worker ${c} of module ${i}."""`, '', `    mode: str = "m${pick(4)}"`, '');
    lines.push('    def __init__(self, config: dict[str, Any], rank: int = 0):', '        self.config = config', '        self.rank = rank', '        self.cache: Optional[dict] = None', '');
    const methods = 2 + pick(7);
    for (let m = 0; m < methods; m++) {
      if (random() < 0.3) lines.push('    @torch.inference_mode()');
      lines.push(`    def step_${m}(self, batch, /, scale: float = 1.0, *args, flag: bool = False, **kwargs) -> list[int]:`);
      lines.push(`        """Step ${m}: prepares, runs and records one batch."""`);
      const body = 3 + pick(8);
      for (let b = 0; b < body; b++) {
        switch (pick(5)) {
          case 0:
            lines.push(`        if self.mode == "m${pick(4)}" and batch.size > ${pick(64)}:`, `            self.prepare_${pick(8)}(batch, scale=scale * ${pick(9)})`);
            break;
          case 1:
            lines.push(`        out_${b} = [self.compute(x, kwargs.get("k${pick(9)}")) for x in batch.items if x is not None]`);
            break;
          case 2:
            lines.push(`        with self.ctx.section("s${pick(20)}") as section:`, `            section.record(len(batch), {"rank": self.rank, "limit": LIMIT_${i}})`);
            break;
          case 3:
            lines.push(`        logger.debug("step %d of %s: %r", ${m}, type(self).__name__, batch)`);
            break;
          default:
            lines.push(`        self.state.update_${pick(6)}(self.helper.lookup(batch.ids[${pick(8)}:], default=None))`);
        }
      }
      lines.push(`        return [${pick(100)}, ${pick(100)}]`, '');
    }
  }
  return `${lines.join('\n')}\n`;
}

function generate(): { files: string[]; bytes: number } {
  const random = rng(1234);
  const files: string[] = [];
  let bytes = 0;
  const write = (rel: string, text: string) => {
    const path = join(root, rel);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    files.push(path);
    bytes += Buffer.byteLength(text);
  };
  write('benchpkg/__init__.py', '__version__ = "1.0.0"\n');
  write('benchpkg/core/__init__.py', '');
  write('benchpkg/core/runner.py', 'class Runner:\n    def execute_model(self, batch):\n        self.update_states(batch)\n        self.kv.pre_forward(batch)\n        return batch\n\n    def update_states(self, batch, is_retracted=False):\n        pass\n');
  const subs = 30;
  for (let s = 0; s < subs; s++) write(`benchpkg/sub${s}/__init__.py`, `from .mod0 import Worker0 as Sub${s}Worker\n`);
  for (let i = 0; files.length < FILES; i++) write(`benchpkg/sub${i % subs}/mod${Math.floor(i / subs)}.py`, moduleSource(i, random));
  return { files, bytes };
}

function writeRegistry(): string {
  const dir = join(root, 'registry');
  const source = 'source:\n  document: verify benchmark\n  section: generated\n';
  const contracts: Record<string, string> = {
    'engines/engine.benchpkg.yaml': `kind: engine\nid: engine.benchpkg\ntitle: benchmark engine\n${source}name: benchpkg\ndistribution: benchpkg\nrole: runtime\nversion: 1.0.0\nline: '1.0'\nrecordedIn: []\nlastRecheck: 2026-11-29\nversionFile: benchpkg/__init__.py\npackage: benchpkg\n`,
    'hooks/hook.benchpkg.update-states.yaml': `kind: hook\nid: hook.benchpkg.update-states\ntitle: benchmark hook\n${source}engine: benchpkg\ntarget: benchpkg.core.runner.Runner.update_states\nhookType: AROUND\nsignature:\n  parameters:\n    - { name: self, kind: positional-or-keyword, hasDefault: false }\n    - { name: batch, kind: positional-or-keyword, hasDefault: false }\n    - { name: is_retracted, kind: positional-or-keyword, hasDefault: true, default: 'False' }\nprotects:\n  text: benchmark\n  lifecycles: [prepare]\nactivation:\n  mode: always\nreplacement:\n  status: none\n  needed: benchmark\nremovalGate:\n  upstream: []\n  gates: []\ndisposition:\n  state: kept\n  reason: benchmark\n`,
    'interfaces/interface.benchpkg.workers.yaml': `kind: interface\nid: interface.benchpkg.workers\ntitle: benchmark interface\n${source}engine: benchpkg\nprofile: ordinary-cache\nsymbols:\n${Array.from({ length: 20 }, (_, s) => `  - target: benchpkg.sub${s}.Sub${s}Worker.step_1\n    kind: method\n    role: inherited through a re-export\n`).join('')}  - target: m3\n    kind: env-var\n    role: a literal somewhere in the tree\nownership:\n  engine: pages\n  cache: cache\ndelivery:\n  mode: best-effort\n  rules: []\nstatus: consumed\nqualifiedBy: []\n`,
    'gaps/gap.benchpkg.order.yaml': `kind: gap\nid: gap.benchpkg.order\ntitle: benchmark gap\n${source}engine: benchpkg\ncategory: interface-gap\nassertion:\n  form: call-order\n  file: benchpkg/core/runner.py\n  function: Runner.execute_model\n  first: update_states\n  then: pre_forward\nconsequence:\n  text: benchmark\n  rejections: []\n  keepsHooks: []\nupstreamFix:\n  status: none\n  needed: benchmark\nreopening:\n  upstream: []\n  gates: []\n`,
  };
  for (const [rel, text] of Object.entries(contracts)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  return dir;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function main(): Promise<void> {
  rmSync(root, { recursive: true, force: true });
  const tree = generate();
  const { registry, diagnostics } = loadRegistry(writeRegistry());
  if (diagnostics.some((d) => d.severity === 'error')) throw new Error(`bench registry does not load: ${JSON.stringify(diagnostics)}`);
  const cpu: number[] = [];
  const read = (): number => {
    const t0 = performance.now();
    let n = 0;
    for (const f of tree.files) n += readFileSync(f).length;
    if (n < tree.bytes) throw new Error('short read');
    return (performance.now() - t0) / 1000;
  };
  const run = async (threads?: number, cacheDir?: string): Promise<number> => {
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    const report = await verifyEngine({ registry, engine: 'benchpkg', source: root, ...(threads !== undefined ? { threads } : {}), ...(cacheDir ? { cacheDir } : {}) });
    const seconds = (performance.now() - t0) / 1000;
    const used = process.cpuUsage(c0);
    if (threads === undefined && !cacheDir) cpu.push((used.user + used.system) / 1e6);
    if (report.verdict !== 'ok' || report.scanned !== tree.files.length) throw new Error(`bench verify did not pass: ${JSON.stringify(report.counts)} ${report.scanned} ${JSON.stringify(report.targets.filter((t) => t.outcome !== 'present').slice(0, 3))}`);
    return seconds;
  };
  read(); // warm the page cache for every side
  const ours: number[] = [];
  const peer: number[] = [];
  const single: number[] = [];
  const cacheRoot = join(tmpdir(), `okv-verify-bench-cache-${process.pid}`);
  const cold: number[] = [];
  const warm: number[] = [];
  const changed: number[] = [];
  const edited = tree.files[Math.floor(tree.files.length / 2)]!;
  let round = 0;
  const cached = async (): Promise<void> => {
    const dir = join(cacheRoot, String(round++));
    cold.push(await run(undefined, dir));
    warm.push(await run(undefined, dir));
    writeFileSync(edited, `${readFileSync(edited, 'utf8')}\nEDITED_${round} = ${round}\n`);
    changed.push(await run(undefined, dir));
  };
  const sides = [async () => ours.push(await run()), async () => peer.push(read()), async () => single.push(await run(0)), cached];
  // each round starts with another side, so load from elsewhere on the machine spreads evenly
  for (let r = 0; r < ROUNDS; r++) for (let k = 0; k < sides.length; k++) await sides[(r + k) % sides.length]!();
  const mb = tree.bytes / 1e6;
  const oursS = median(ours);
  printReport('verify', [
    { name: `verify ${tree.files.length} files, ${mb.toFixed(1)} MB, ${availableParallelism()} threads (s; target < 10 s)`, unit: 's', ours: oursS, peer: median(peer), peerName: 'read the same files', ratio: costRatio(oursS, median(peer)), target: '< 10 s' },
    { name: 'worker pool vs parsing in one thread (s)', unit: 's', ours: oursS, peer: median(single), peerName: 'verify, threads 0', ratio: costRatio(oursS, median(single)), target: `≈ ${availableParallelism()}` },
    { name: 'CPU time of a run, all threads (s); wall time is this over the cores free', unit: 's', ours: median(cpu), peer: median(peer), peerName: 'read the same files', ratio: costRatio(median(cpu), median(peer)), target: 'info' },
    { name: 'cache: first run into an empty cache (s; target < 5 s)', unit: 's', ours: median(cold), peer: oursS, peerName: 'verify without cache', ratio: costRatio(median(cold), oursS), target: '< 5 s' },
    { name: 'cache: re-run, nothing changed (s)', unit: 's', ours: median(warm), peer: oursS, peerName: 'verify without cache', ratio: costRatio(median(warm), oursS), target: 'info' },
    { name: 'cache: re-run after one file changed (s; target < 1 s)', unit: 's', ours: median(changed), peer: oursS, peerName: 'verify without cache', ratio: costRatio(median(changed), oursS), target: '< 1 s' },
    { name: 'throughput (MB/s)', unit: 'MB/s', ours: mb / oursS, peer: mb / median(peer), peerName: 'read the same files', ratio: mb / oursS / (mb / median(peer)), target: 'info' },
  ]);
  // ORBITKV_BENCH_KEEP=1 keeps the generated tree (and its registry/) to run the CLI against it
  if (process.env['ORBITKV_BENCH_KEEP']) process.stderr.write(`verify bench: tree kept at ${root}\n`);
  else rmSync(root, { recursive: true, force: true });
  rmSync(cacheRoot, { recursive: true, force: true });
  if (oursS >= 10 || median(cold) >= 5 || median(changed) >= 1) process.exitCode = 1;
}

await main();
