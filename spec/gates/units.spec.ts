import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { acceptableProfile } from '../../engine/gates/harness/profile.js';
import { cellParameters, createProgress, planGates, progressEnabled } from '../../engine/gates/run/index.js';
import { scenario } from '../../engine/gates/index.js';
import { cellResultBlocker, type CellResult } from '../../engine/lifecycle/index.js';
import { faultPoint, parseFaultPlan } from '../../engine/runtime/faults/index.js';
import { loadRejectionChecks } from '../../engine/runtime/handshake/index.js';
import { embeddedRegistryDir, loadRegistry } from '../../engine/registry/index.js';
import { REPO } from './support.js';

const embedded = () => loadRegistry(embeddedRegistryDir()).registry;
const result = (engines: string[], standIn: boolean): CellResult => ({ pass: true, adapter: 'a'.repeat(64), hashes: 'equal', engines, standIn, independent: false, seq: 1, actor: 'ci' });

describe('lifecycle/cell-pass: a stand-in run never passes a gate that needs the real engine', () => {
  it('a pass marked as run on a stand-in passes an adapter gate but not an engine-and-adapter gate, whatever pins it names', () => {
    assert.equal(cellResultBlocker(result(['vllm'], true), 'adapter'), undefined);
    assert.match(cellResultBlocker(result(['vllm'], true), 'engine-and-adapter') ?? '', /stand-in/);
    assert.match(cellResultBlocker(result([], true), 'engine-and-adapter') ?? '', /stand-in/);
    assert.equal(cellResultBlocker(result(['vllm'], false), 'engine-and-adapter'), undefined);
  });
});

describe('gates/plan', () => {
  it('maps every cell of a gate to the parameters its scenario names', () => {
    const r = planGates(embedded(), ['gate.runtime.lookup-rank-agreement', 'gate.runtime.tier-cold-hot-restart']);
    assert.deepEqual(r.diagnostics, []);
    assert.deepEqual(r.gates[0]!.cells.map((c) => c.params), [{ ranks: 2 }, { ranks: 4 }]);
    assert.deepEqual(r.gates[1]!.cells[5]!.params, { tier: 'ssd', phase: 'restart' });
    assert.equal(cellParameters(scenario('lookup-states')!.parameters, { prefix: 'lukewarm' }), null);
  });

  it('refuses ids that are not gates (OKV7202, OKV7203) and says why a gate does not run here', () => {
    const r = planGates(embedded(), ['gate.nope', 'hook.sglang.init-cuda-graphs']);
    assert.deepEqual(r.diagnostics.map((d) => d.code), ['OKV7202', 'OKV7203']);
    const skips = planGates(embedded(), ['gate.runtime.graph-restore', 'gate.vllm.model-gate']).gates.map((g) => g.skip);
    assert.equal(skips[0], 'needs a GPU');
    assert.match(skips[1]!, /^external procedure/);
  });
});

describe('gates/harness/profile', () => {
  it("derives, per engine, a profile the registry's own rejection checks accept", async () => {
    const registry = embedded();
    const checks = await loadRejectionChecks(registry);
    for (const e of ['vllm', 'sglang']) {
      const p = acceptableProfile(e, registry.engine(e)!.version, registry.ofKind('rejection'));
      assert.ok(p, e);
      assert.deepEqual(checks.evaluate(p).rejections.map((r) => r.id), [], e);
    }
  });

  it('gives none when a rejection cannot be avoided by any setting', () => {
    const always = { kind: 'rejection', id: 'rejection.x', engine: 'vllm', when: { version: 'engine', op: 'version-at-least', value: '0.0.1' } } as never;
    assert.equal(acceptableProfile('vllm', '0.31.0', [always]), null);
  });
});

describe('gates/run/progress', () => {
  const sink = (isTTY: boolean) => {
    const out: string[] = [];
    return { isTTY, columns: 60, write: (t: string) => out.push(t), out };
  };
  it('shows cells done of total, the current cell and the time on a terminal', () => {
    const s = sink(true);
    let now = 0;
    const p = createProgress(3, s, progressEnabled(s, {}), () => now);
    p.started('gate.a [x=1]');
    now = 1500;
    p.finished('gate.a [x=1]');
    p.end();
    assert.ok(s.out.some((l) => l.includes('0/3 cells') && l.includes('gate.a [x=1]')));
    assert.ok(s.out.some((l) => l.includes('1/3 cells, 1.5s')));
  });
  it('is quiet when not a terminal or in CI', () => {
    assert.equal(progressEnabled(sink(false), {}), false);
    assert.equal(progressEnabled(sink(true), { CI: 'true' }), false);
    assert.equal(progressEnabled(sink(true), { CI: 'false' }), true);
  });
});

describe('runtime/faults: off unless serve --faults names them', function () {
  this.timeout(60_000);
  it('parses a plan and refuses unknown faults and unbounded holds', () => {
    assert.deepEqual(parseFaultPlan('ssd-read-hold-ms=1500,restore-copy-delay-ms=0'), { 'ssd-read-hold-ms': 1500, 'restore-copy-delay-ms': 0 });
    assert.ok('problem' in (parseFaultPlan('disk-on-fire=1') as object));
    assert.ok('problem' in (parseFaultPlan('ssd-read-hold-ms=999999') as object));
    assert.ok('problem' in (parseFaultPlan('') as object));
  });
  it('every injection point is a no-op in a process that did not enable faults', () => {
    assert.equal(faultPoint('ssd-read-hold-ms'), null);
    assert.equal(faultPoint('restore-copy-delay-ms'), null);
  });
  it('orbitkv serve refuses a bad --faults plan with OKV7201 before serving', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', join(REPO, 'engine', 'cli', 'main.ts'), 'serve', '--socket', '/tmp/never.sock', '--faults', 'disk-on-fire=1'], { encoding: 'utf8', cwd: REPO });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /OKV7201/);
  });
});

describe('bin/bootstrap and the gate command line', function () {
  this.timeout(60_000);
  it('the bootstrap names its two commands', () => {
    const r = spawnSync(process.execPath, [join(REPO, 'bin', 'bootstrap.js'), 'deploy'], { encoding: 'utf8' });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /start\|test/);
  });
  it('gate run without gates is a usage error', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', join(REPO, 'engine', 'cli', 'main.ts'), 'gate', 'run'], { encoding: 'utf8', cwd: REPO });
    assert.equal(r.status, 2);
  });
});
