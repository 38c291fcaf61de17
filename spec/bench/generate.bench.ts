/**
 * `npm run bench -- generate`: `orbitkv generate` (plan, emit Python, TypeScript via ts-morph,
 * wheels, manifest, write) for a 10,000-contract registry, against the peer of writing the same
 * bytes with plain `fs.writeFileSync` in the same run. Target: generation under 3 s.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import type { Contract, GateContract, HookContract, Predicate, RejectionContract } from '../../engine/model/index.js';
import { type ContractEntry, Registry, loadRegistry } from '../../engine/registry/index.js';
import { generateAdapters, renderAdapters } from '../../generators/index.js';
import { costRatio, printReport } from './report.js';

const TOTAL = 10_000;
const RUNS = 5;

function syntheticRegistry(): Registry {
  const embedded = loadRegistry(resolve(import.meta.dirname, '..', '..', 'contracts')).registry;
  const lines = new LineCounter();
  const source = { file: 'synthetic.yaml', path: '/synthetic.yaml', text: '{}', doc: parseDocument('{}', { lineCounter: lines }), lines };
  const entries: ContractEntry[] = [...embedded.entries];
  const cite = { document: 'bench', section: 'synthetic' };
  const leaf = (i: number): Predicate => [
    { env: `BENCH_ENV_${i % 97}`, op: 'equals', value: String(i % 7) },
    { config: `bench.section_${i % 13}.flag_${i % 31}`, op: 'truthy' },
    { config: `bench.groups_${i % 17}`, op: 'count-greater-than', value: i % 5 },
  ][i % 3] as Predicate;
  for (let i = 0; entries.length < TOTAL; i++) {
    let contract: Contract;
    if (i % 5 < 3) {
      contract = {
        kind: 'rejection', id: `rejection.bench.r${i}`, title: `Synthetic rejection ${i}`, source: cite,
        engine: i % 2 ? 'vllm' : 'sglang', when: { any: [leaf(i), { not: leaf(i + 1) }] },
        message: `OrbitKV does not support synthetic profile ${i} ("quoted", 'single', \\backslash, {braces}, é)`,
        instead: `select profile ${i + 1}`, justifiedBy: ['gap.vllm.v2-preforward-ordering', 'policy.unsupported-profiles-fail-explicitly'],
      } satisfies RejectionContract;
    } else if (i % 5 === 3) {
      contract = {
        kind: 'hook', id: `hook.bench.h${i}`, title: `Synthetic hook ${i}`, source: cite, engine: 'sglang',
        target: `sglang.srt.bench.module_${i % 50}.Target${i}.method`, hookType: i % 2 ? 'BEFORE' : 'AROUND',
        signature: { parameters: [{ name: 'self', kind: 'positional-or-keyword', hasDefault: false }, { name: 'req', kind: 'positional-or-keyword', hasDefault: i % 3 === 0 }] },
        protects: { text: `Protects synthetic lifecycle ${i}.`, lifecycles: ['lookup'] },
        activation: i % 4 ? { mode: 'always' } : { mode: 'opt-in', switches: [{ env: `BENCH_HOOK_${i}`, value: '1' }] },
        replacement: { status: 'none', needed: 'a released callback' },
        removalGate: { upstream: [{ requires: `upstream change ${i}` }], gates: ['gate.runtime.lookup-states'] },
        disposition: { state: 'kept', reason: 'synthetic' }, implementation: `orbitkv_sglang.hooks.bench_hook_${i}`,
      } satisfies HookContract;
    } else {
      contract = {
        kind: 'gate', id: `gate.bench.g${i}`, title: `Synthetic gate ${i}`, source: cite,
        scenario: { runner: 'orbitkv', scenario: `bench-${i}` }, environment: { gpu: false }, qualifies: 'synthetic',
        evidence: { hashes: 'none', independent: false },
      } satisfies GateContract;
    }
    entries.push({ contract, source });
  }
  return new Registry('/synthetic', entries);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const registry = syntheticRegistry();
const root = mkdtempSync(join(tmpdir(), 'orbitkv-bench-generate-'));
try {
  const ours: number[] = [];
  const peer: number[] = [];
  const check: number[] = [];
  let files = 0;
  let bytes = 0;
  for (let run = 0; run < RUNS; run++) {
    const out = join(root, `ours-${run}`);
    let t = performance.now();
    const result = generateAdapters(registry, { outDir: out, wheel: true });
    ours.push(performance.now() - t);
    if (result.diagnostics.some((d) => d.severity === 'error')) throw new Error(JSON.stringify(result.diagnostics.slice(0, 3)));
    t = performance.now();
    const drift = generateAdapters(registry, { outDir: out, wheel: true, check: true }).drift;
    check.push(performance.now() - t);
    if (drift.length) throw new Error('a fresh generation drifted');
    const rendered = renderAdapters(registry, { wheel: true }).files;
    files = rendered.length;
    bytes = rendered.reduce((n, f) => n + f.bytes.length, 0);
    const plain = join(root, `peer-${run}`);
    t = performance.now();
    for (const f of rendered) {
      mkdirSync(dirname(join(plain, f.path)), { recursive: true });
      writeFileSync(join(plain, f.path), f.bytes);
    }
    peer.push(performance.now() - t);
  }
  const o = median(ours) / 1000;
  const p = median(peer) / 1000;
  const c = median(check) / 1000;
  process.stdout.write(`registry: ${registry.entries.length} contracts; output: ${files} files, ${(bytes / 1e6).toFixed(1)} MB; median of ${RUNS}\n`);
  printReport('generate', [
    { name: `generate --wheel, ${registry.entries.length} contracts (< 3 s)`, unit: 's', ours: o, peer: p, peerName: 'fs.writeFileSync of the same bytes', ratio: costRatio(o, p), target: '< 3 s' },
    { name: `generate --check, ${registry.entries.length} contracts (< 3 s)`, unit: 's', ours: c, peer: p, peerName: 'fs.writeFileSync of the same bytes', ratio: costRatio(c, p), target: '< 3 s' },
  ]);
  if (o >= 3) process.exitCode = 1;
} finally {
  rmSync(root, { recursive: true, force: true });
}
