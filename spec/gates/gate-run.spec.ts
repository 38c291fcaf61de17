import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { recordResults, runGates, type GateRunResult } from '../../engine/gates/run/index.js';
import { appendEvidence, contractMatrix, ledgerAdmission, ledgerFiles, loadBoard, readHead } from '../../engine/lifecycle/index.js';
import { loadRegistry } from '../../engine/registry/index.js';
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

  it("appends nothing when the ledger would refuse the last cell's result (OKV4405)", () => {
    const n = lines(files.ledger);
    const head = readHead(files);
    const ran = run.cells.filter((c) => c.status !== 'skip');
    const last = ran.at(-1)!;
    // The last cell names a gate the registry does not hold: every earlier result is admissible.
    const refusedLast = { ...run, cells: run.cells.map((c) => (c === last ? { ...c, gate: 'gate.runtime.not-in-the-registry' } : c)) };
    const r = recordResults(refusedLast, { registry, actor: 'spec', cwd: registry.root, env: { ORBITKV_CACHE_DIR: '' } });
    assert.deepEqual(r.diagnostics.map((d) => d.code), ['OKV4405', 'OKV4002']);
    assert.equal(r.diagnostics[0]!.contract, 'gate.runtime.not-in-the-registry');
    assert.equal(r.appended.length, 0);
    assert.equal(lines(files.ledger), n);
    assert.deepEqual(readHead(files), head);
  });

  it('records one gate.result per cell, marked as run on a stand-in on a CPU and bound to the pins of the engines it exercised and the adapter manifest hash, with equal input hashes', () => {
    const n = lines(files.ledger);
    const r = recordResults(run, { registry, actor: 'spec', cwd: registry.root, env: { ORBITKV_CACHE_DIR: '' } });
    assert.deepEqual(r.diagnostics, []);
    const ran = run.cells.filter((c) => c.status !== 'skip');
    assert.equal(r.appended.length, ran.length);
    assert.equal(lines(files.ledger), n + ran.length);
    type Line = { subject: string; profile: { engines: Record<string, { version: string; commit?: string }>; adapter: string }; data: { hashes: { before: string; after: string }; note: string; where?: object } };
    const written = readFileSync(files.ledger, 'utf8').trim().split('\n').slice(n).map((l) => JSON.parse(l) as Line);
    for (const [i, rec] of written.entries()) {
      const cell = ran[i]!;
      assert.deepEqual(rec.data.where, { engine: 'stand-in', device: 'cpu' }, rec.subject);
      const engines = cell.engines.length > 0 ? cell.engines : run.adapterEngines;
      assert.deepEqual(Object.keys(rec.profile.engines).sort(), engines, `${rec.subject} [${cell.cell}]`);
      for (const e of engines) {
        const pin = registry.engine(e)!;
        assert.deepEqual(rec.profile.engines[e], { version: pin.version, ...(pin.commit ? { commit: pin.commit } : {}) });
      }
      assert.equal(rec.profile.adapter, run.adapter);
      assert.equal(rec.data.hashes.before, rec.data.hashes.after);
      assert.match(rec.data.note, /stand-in engine on a CPU/);
    }
    // Results are bound to the engines each cell exercised: one for most, every engine for the packaging checks.
    assert.ok(ran.some((c) => c.engines.length === 1) && ran.some((c) => c.engines.length === run.adapterEngines.length && run.adapterEngines.length > 1));
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

  it("explain's matrix says a stand-in ran each recorded cell", () => {
    const { loaded } = loadBoard(registry, files);
    const m = contractMatrix(registry, loaded.state, 'gate.runtime.lookup-states')!;
    assert.ok(m.cells.length > 0);
    for (const c of m.cells) assert.match(c.profile, /on an engine stand-in$/, c.cell);
  });

  it('a pin change (the engine contract moved first) sends the CPU gates that ran against that engine back to pending, and no others', () => {
    const ran = run.cells.filter((c) => c.status !== 'skip');
    const boundTo = (gate: string, engine: string) => ran.some((c) => c.gate === gate && (c.engines.length > 0 ? c.engines : run.adapterEngines).includes(engine));
    const cpu = registry.ofKind('gate').filter((x) => x.scenario.runner === 'orbitkv' && !x.environment.gpu).map((g) => g.id);
    const sent = cpu.filter((g) => boundTo(g, 'vllm'));
    const kept = cpu.filter((g) => !boundTo(g, 'vllm'));
    assert.ok(sent.length > 0 && kept.length > 0, `${sent.length} gates ran against vllm, ${kept.length} did not`);
    const file = join(registry.root, 'engines', 'engine.vllm.yaml');
    const pin = registry.engine('vllm')!;
    const commit = 'c'.repeat(40);
    writeFileSync(file, readFileSync(file, 'utf8').split(pin.version).join('0.31.1').split(pin.commit!).join(commit));
    const moved = loadRegistry(registry.root).registry;
    assert.equal(moved.engine('vllm')!.version, '0.31.1');
    const added = appendEvidence(files, { actor: 'spec', type: 'pin.changed', subject: 'engine.vllm', data: { version: '0.31.1', commit } } as never, ledgerAdmission(moved, files));
    assert.deepEqual(added.diagnostics, []);
    const board = loadBoard(moved, files).board;
    const state = (id: string) => board.rows.find((r) => r.id === id)!.state;
    for (const g of sent) assert.equal(state(g), 'pending', g);
    for (const g of kept) assert.equal(state(g), 'passed', g);
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
