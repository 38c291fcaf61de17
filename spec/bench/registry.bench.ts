/**
 * `npm run bench -- registry`: load + validate a generated registry of 10,000 contracts (the
 * embedded ones cloned in groups with new ids, engine names and consistent references) against
 * the peer, plain `yaml.parse` of the same files read from disk, in the same run.
 * Targets: cost ratio (peer / ours) ≥ 0.5, i.e. validation costs at most as much again as
 * parsing; ours under 1.5 s in all. "Ours" is what `orbitkv validate` runs (the parallel
 * loader, then the rules); the one-thread loader is measured too. Rounds rotate which side goes
 * first; medians compared. ORBITKV_BENCH_CONTRACTS / ORBITKV_BENCH_ROUNDS / ORBITKV_BENCH_TODAY
 * override the size, the rounds and the date recheck ages are measured at.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { embeddedRegistryDir, listContractFiles, loadRegistry, loadRegistryParallel, validateRegistry } from '../../engine/registry/index.js';
import { errorCount } from '../../engine/diagnostics/index.js';
import { costRatio, printReport, type BenchResult } from './report.js';

const CONTRACTS = Number(process.env['ORBITKV_BENCH_CONTRACTS'] ?? 10_000);
const ROUNDS = Number(process.env['ORBITKV_BENCH_ROUNDS'] ?? 5);
const TODAY = process.env['ORBITKV_BENCH_TODAY'] ?? '2026-11-29';

/**
 * Writes `count` contracts: group N holds every embedded contract with `.gN` ids and `-gN` engine
 * names, references rewritten alike, so each group is a consistent registry of its own.
 */
function generate(dir: string, count: number): void {
  const source = embeddedRegistryDir();
  const { registry } = loadRegistry(source);
  const ids = registry.entries.map((e) => e.contract.id).sort((a, b) => b.length - a.length);
  const engines = registry.ofKind('engine').map((e) => e.name);
  const idPattern = new RegExp(`(?<![A-Za-z0-9.-])(${ids.map((id) => id.replace(/[.]/g, '\\.')).join('|')})(?![A-Za-z0-9-]|\\.[A-Za-z0-9])`, 'g');
  const enginePattern = new RegExp(`^(\\s*(?:- )?(?:engine|name|distribution): )(${engines.join('|')})$`, 'gm');
  const templates = registry.entries.map((e) => ({ kind: e.contract.kind, id: e.contract.id, text: e.source.text }));
  let written = 0;
  const write = (kind: string, id: string, text: string) => {
    const folder = join(dir, `${kind}s`);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, `${id}.yaml`), text);
    written++;
  };
  for (let group = 0; written + templates.length <= count; group++) {
    for (const t of templates) {
      write(t.kind, `${t.id}.g${group}`, t.text.replace(idPattern, `$1.g${group}`).replace(enginePattern, `$1$2-g${group}`));
    }
  }
  // The remainder: more upstream changes (they name only an engine) against group 0's engines.
  const upstreams = templates.filter((t) => t.kind === 'upstream');
  for (let extra = 0; written < count; extra++) {
    const t = upstreams[extra % upstreams.length]!;
    write(t.kind, `${t.id}.x${extra}`, t.text.replace(idPattern, `$1.x${extra}`).replace(enginePattern, '$1$2-g0'));
  }
}

async function time(fn: () => unknown): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

const dir = mkdtempSync(join(tmpdir(), 'okv-bench-registry-'));
try {
  generate(dir, CONTRACTS);
  const files = listContractFiles(dir, []);
  let contracts = 0;
  let errors = 0;
  let warnings = 0;
  const check = (registry: import('../../engine/registry/index.js').Registry, loaded: import('../../engine/diagnostics/index.js').Diagnostic[]) => {
    const all = [...loaded, ...validateRegistry(registry, { today: TODAY })];
    contracts = registry.entries.length;
    errors = errorCount(all);
    warnings = all.length - errors;
  };
  // What `orbitkv validate` runs: the parallel loader (worker threads), then the rules.
  const ours = async () => {
    const { registry, diagnostics } = await loadRegistryParallel(dir);
    check(registry, diagnostics);
  };
  // The same on one thread, for the record.
  const sequential = () => {
    const { registry, diagnostics } = loadRegistry(dir);
    check(registry, diagnostics);
  };
  // The peer keeps what it parsed, as any loader must.
  let kept: unknown[] = [];
  const peer = () => {
    kept = [];
    for (const f of files) kept.push(parse(readFileSync(f, 'utf8')));
  };
  // Warm-up: JIT, the compiled schemas, the page cache.
  await ours();
  sequential();
  peer();
  if (contracts !== CONTRACTS || errors !== 0 || kept.length !== CONTRACTS) {
    throw new Error(`generated registry is not clean: ${contracts} contracts, ${errors} errors, ${kept.length} parsed`);
  }
  kept = [];
  const oursMs: number[] = [];
  const seqMs: number[] = [];
  const peerMs: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const sides: Array<[number[], () => unknown]> = [[oursMs, ours], [seqMs, sequential], [peerMs, peer]];
    // Each side goes first in turn; no side's data outlives its turn (a bigger heap slows the next).
    for (let k = 0; k < sides.length; k++) {
      const [into, fn] = sides[(round + k) % sides.length]!;
      into.push(await time(fn));
      kept = [];
    }
  }
  const o = median(oursMs);
  const q = median(seqMs);
  const p = median(peerMs);
  const label = `${CONTRACTS} contracts, ${warnings} warnings`;
  const results: BenchResult[] = [
    { name: `load+validate ${label} (cost ratio)`, unit: 'ms', ours: o, peer: p, peerName: 'yaml.parse of the same files', ratio: costRatio(o, p), target: 0.5 },
    { name: `load+validate ${label}, one thread`, unit: 'ms', ours: q, peer: p, peerName: 'yaml.parse of the same files', ratio: costRatio(q, p), target: 0.5 },
    { name: `load+validate ${label} under 1.5 s`, unit: 'ms', ours: o, peer: 1500, peerName: 'bound: 1500 ms', ratio: costRatio(o, 1500), target: 1 },
  ];
  printReport('registry', results);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
