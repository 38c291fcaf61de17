import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { recordResults, runGates, type GateRunResult } from '../../engine/gates/run/index.js';
import { ledgerFiles, loadBoard } from '../../engine/lifecycle/index.js';
import { brokenAdapters, brokenManager, copyRegistry } from './support.js';

const lines = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean).length;

describe('gates/run: gate run --all --record on a copy of the embedded registry', function () {
  this.timeout(600_000);
  let run: GateRunResult;
  const registry = copyRegistry();
  const files = ledgerFiles(registry.root);
  const initial = loadBoard(registry, files).board;

  before(async () => {
    run = await runGates({ registry, ids: 'all', jobs: 2 });
  });

  it('runs every cell of every CPU gate against real Managers and stand-ins, and every one passes', () => {
    const cpu = registry.ofKind('gate').filter((g) => g.scenario.runner === 'orbitkv' && !g.environment.gpu);
    assert.ok(cpu.length >= 12);
    for (const g of cpu) {
      const cells = run.cells.filter((c) => c.gate === g.id);
      assert.ok(cells.length > 0, g.id);
      for (const c of cells) assert.equal(c.status, 'pass', `${g.id} [${c.cell}]: ${c.error ?? ''} ${JSON.stringify(c.checks.filter((k) => !k.ok))}`);
    }
    assert.ok(run.place.startsWith('stand-in engine on a CPU'));
  });

  it('lists GPU, real-engine and external gates as skipped, never as passed', () => {
    for (const g of registry.ofKind('gate').filter((x) => x.scenario.runner === 'external' || x.environment.gpu)) {
      const cells = run.cells.filter((c) => c.gate === g.id);
      assert.ok(cells.length > 0 && cells.every((c) => c.status === 'skip'), g.id);
    }
    assert.ok(run.cells.filter((c) => c.gate === 'gate.runtime.graph-restore').every((c) => c.skip === 'needs a GPU'));
  });

  it('refuses to record when an input changed during the run, appending nothing (OKV4403)', () => {
    const n = lines(files.ledger);
    const changed = { ...run, after: { ...run.after!, manifest: 'f'.repeat(64), combined: 'e'.repeat(64) } };
    const r = recordResults(changed, { registry, actor: 'spec', cwd: registry.root, env: { ORBITKV_CACHE_DIR: '' } });
    assert.deepEqual(r.diagnostics.map((d) => d.code), ['OKV4403']);
    assert.equal(r.appended.length, 0);
    assert.equal(lines(files.ledger), n);
  });

  it('records one gate.result per cell bound to the adapter manifest hash and no engine release, with equal input hashes', () => {
    const n = lines(files.ledger);
    const r = recordResults(run, { registry, actor: 'spec', cwd: registry.root, env: { ORBITKV_CACHE_DIR: '' } });
    assert.deepEqual(r.diagnostics, []);
    const ran = run.cells.filter((c) => c.status !== 'skip');
    assert.equal(r.appended.length, ran.length);
    assert.equal(lines(files.ledger), n + ran.length);
    const last = JSON.parse(readFileSync(files.ledger, 'utf8').trim().split('\n').at(-1)!) as { profile: { engines: object; adapter: string }; data: { hashes: { before: string; after: string }; note: string } };
    assert.deepEqual(last.profile.engines, {});
    assert.equal(last.profile.adapter, run.adapter);
    assert.equal(last.data.hashes.before, last.data.hashes.after);
    assert.match(last.data.note, /stand-in engine on a CPU/);
  });

  it('the board then shows the CPU runtime gates passed, every kept hook still kept, and no real-engine gate passed', () => {
    const board = loadBoard(registry, files).board;
    const row = (id: string) => board.rows.find((r) => r.id === id)!;
    for (const g of registry.ofKind('gate').filter((x) => x.scenario.runner === 'orbitkv' && !x.environment.gpu)) assert.equal(row(g.id).state, 'passed', g.id);
    for (const h of initial.rows.filter((r) => r.kind === 'hook' && r.state === 'kept')) assert.equal(row(h.id).state, 'kept', h.id);
    for (const g of registry.ofKind('gate').filter((x) => x.evidence.hashes === 'engine-and-adapter')) assert.notEqual(row(g.id).state, 'passed', g.id);
  });

  it('the adapter hash recorded is the sha256 of the generated manifest of this registry', async () => {
    const { renderAdapters } = await import('../../generators/index.js');
    const manifest = renderAdapters(registry, { wheel: true }).files.find((f) => f.path === 'MANIFEST.json')!;
    assert.equal(run.adapter, createHash('sha256').update(manifest.bytes).digest('hex'));
  });
});

/**
 * Break each lifecycle a scenario qualifies, and the gate fails. Each row: the gate, the cell run,
 * and the break (a test-only Manager entry that patches the running Manager, or a defective wheel).
 */
const BROKEN: { gate: string; cell: string; broken: string }[] = [
  { gate: 'gate.runtime.tier-cold-hot-restart', cell: 'tier=ssd,phase=restart', broken: 'torn-served' },
  { gate: 'gate.runtime.lookup-states', cell: 'prefix=partial', broken: 'pending-as-miss' },
  { gate: 'gate.runtime.lookup-timeout', cell: '-', broken: 'no-timeout' },
  { gate: 'gate.runtime.lookup-cancellation', cell: '-', broken: 'cancel-ignored' },
  { gate: 'gate.runtime.lookup-rank-agreement', cell: 'ranks=2', broken: 'ranks-disagree' },
  { gate: 'gate.runtime.checkpoint-window-bytes', cell: 'event=abort', broken: 'abort-keeps-leases' },
  { gate: 'gate.runtime.fault-paused-ssd-cancel', cell: '-', broken: 'release-before-drain' },
  { gate: 'gate.runtime.fault-expired-result', cell: '-', broken: 'no-expiry' },
  { gate: 'gate.runtime.fault-delayed-restore', cell: '-', broken: 'flag-before-bytes' },
  { gate: 'gate.runtime.fault-manager-restart', cell: '-', broken: 'forget-index' },
  { gate: 'gate.runtime.fault-engine-killed', cell: '-', broken: 'pages-never-unmapped' },
];

describe('gates/run: each scenario fails when the lifecycle it qualifies is broken', function () {
  this.timeout(600_000);
  const registry = copyRegistry();
  const outcomes = new Map<string, GateRunResult>();

  before(async () => {
    const queue = [...BROKEN];
    const worker = async () => {
      for (let b = queue.shift(); b; b = queue.shift()) {
        const one = b;
        outcomes.set(one.broken, await runGates({ registry, ids: [one.gate], jobs: 1, launcher: brokenManager(one.broken), cells: (_g, cell) => cell === one.cell }));
      }
    };
    await Promise.all([worker(), worker()]);
  });

  for (const b of BROKEN) {
    it(`${b.gate} [${b.cell}] fails with the Manager broken: ${b.broken}`, () => {
      const r = outcomes.get(b.broken)!;
      const cell = r.cells.find((c) => c.cell === b.cell)!;
      assert.equal(cell.status, 'fail', JSON.stringify(cell));
      assert.ok(cell.checks.some((k) => !k.ok) || cell.error !== undefined);
    });
  }

  it('gate.packaging fails on a wheel that carries bytecode', async () => {
    const adapters = brokenAdapters(registry, 'orbitkv_vllm', (m) => [...m, { name: 'orbitkv_vllm/__pycache__/plugin.cpython-311.pyc', bytes: Buffer.from('bytecode') }]);
    const r = await runGates({ registry, ids: ['gate.packaging'], adaptersDir: adapters });
    assert.equal(r.cells[0]!.status, 'fail');
    assert.ok(r.cells[0]!.checks.some((k) => !k.ok && k.what.includes('package-check')));
  });

  it('gate.lazy-import fails on a package that imports torch when not selected', async () => {
    const adapters = brokenAdapters(registry, 'orbitkv_sglang', (m) => m.map((x) => (x.name === 'orbitkv_sglang/__init__.py' ? { ...x, bytes: Buffer.concat([x.bytes, Buffer.from('\nimport torch\n')]) } : x)));
    const r = await runGates({ registry, ids: ['gate.lazy-import'], adaptersDir: adapters });
    assert.equal(r.cells[0]!.status, 'fail');
    assert.ok(r.cells[0]!.checks.some((k) => !k.ok && k.what.includes('forbidden module')), JSON.stringify(r.cells[0]!.checks));
  });
});

describe('gates/run: a product registry adds its own runnable scenario', function () {
  this.timeout(120_000);
  it("runs the product policy's scenario module against a real Manager and the product's generated client", async () => {
    const registry = copyRegistry(join(import.meta.dirname, '..', 'fixtures', 'tessera'), (dir) => {
      const read = readFileSync;
      const policy = join(dir, 'policies', 'policy.product.yaml');
      writeFileSync(policy, read(policy, 'utf8').replace('      needs: cpu', '      needs: cpu\n      module: scenarios/warm-tier.mjs'));
      const gate = join(dir, 'gates', 'gate.tessera.warm-tier.yaml');
      writeFileSync(gate, read(gate, 'utf8').replace('hashes: engine-and-adapter', 'hashes: adapter'));
      mkdirSync(join(dir, 'scenarios'));
      writeFileSync(join(dir, 'scenarios', 'warm-tier.mjs'), WARM_TIER);
    });
    const r = await runGates({ registry, ids: ['gate.tessera.warm-tier'] });
    assert.equal(r.cells.length, 1);
    assert.equal(r.cells[0]!.status, 'pass', JSON.stringify(r.cells[0]));
    assert.match(r.place, /tessera_/);
  });
});

/** Tessera's warm-tier scenario, as a product would write it: fill blocks, read every one back. */
const WARM_TIER = `
export async function run(ctx) {
  const m = await ctx.manager({ ssdBytes: 8 * 1024 * 1024 });
  const e = await ctx.engine(m);
  const hashes = ctx.hashes('warm', 6);
  const pages = [0, 1, 2, 3, 4, 5];
  await e.fill(pages, hashes);
  const digests = await e.digest(pages);
  const saved = await e.save(hashes, pages);
  ctx.check(saved.blocks.every((b) => b === 'stored'), 'every block is stored', saved);
  const t = await e.lookup(hashes);
  const r = await e.wait(t, 5000);
  ctx.check(r && r.state === 'ready' && r.boundary === 6, 'every block is found', r);
  const into = [10, 11, 12, 13, 14, 15];
  const restore = await e.restore(t, into);
  ctx.check(await e.waitLayer(restore, 0, 5000), 'the restore lands');
  const got = await e.digest(into);
  ctx.check(got.every((d, i) => d === digests[i]), 'every block reads back with its bytes');
}
`;
