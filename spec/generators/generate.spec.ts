import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseDocument } from 'yaml';
import { runCli } from '../../engine/cli/main.js';
import { MANIFEST_NAME, generateAdapters, renderAdapters } from '../../generators/index.js';
import { captureIo } from '../support/io.js';
import { REPO, embeddedRegistry, registryAt, tempDir } from './support.js';

/** A copy of the embedded registry with one YAML document edited. */
function registryWith(file: string, edit: (doc: ReturnType<typeof parseDocument>) => void): string {
  const dir = tempDir('registry');
  cpSync(join(REPO, 'contracts'), dir, { recursive: true });
  const path = join(dir, file);
  const doc = parseDocument(readFileSync(path, 'utf8'));
  edit(doc);
  writeFileSync(path, doc.toString());
  return dir;
}

const codes = (ds: { code: string }[]) => ds.map((d) => d.code).sort();

describe('generators: generate, manifest and --check', function () {
  this.timeout(60_000);

  it('two runs are byte-identical (wheels included), sorted, LF-only, manifest last', () => {
    const a = renderAdapters(embeddedRegistry(), { wheel: true });
    const b = renderAdapters(registryAt(join(REPO, 'contracts')), { wheel: true });
    assert.deepEqual(a.files.map((f) => f.path), b.files.map((f) => f.path));
    for (const [i, f] of a.files.entries()) assert.ok(f.bytes.equals(b.files[i]!.bytes), f.path);
    assert.equal(a.files.at(-1)!.path, MANIFEST_NAME);
    const paths = a.files.slice(0, -1).map((f) => f.path);
    assert.deepEqual(paths, [...paths].sort());
    for (const f of a.files) if (!f.path.endsWith('.whl')) assert.ok(!f.bytes.includes('\r'), `${f.path} is LF-only`);
    for (const f of a.files) if (f.path.endsWith('.py')) assert.match(f.bytes.toString('utf8'), /^# Generated from the OrbitKV contracts by the contract generator.*do not edit/);
  });

  it('writes once, then writes nothing; --check finds no drift', () => {
    const out = tempDir('gen');
    const first = generateAdapters(embeddedRegistry(), { outDir: out });
    assert.equal(first.written.length, first.files.length);
    const second = generateAdapters(embeddedRegistry(), { outDir: out });
    assert.deepEqual(second.written, []);
    assert.deepEqual(generateAdapters(embeddedRegistry(), { outDir: out, check: true }).drift, []);
  });

  it('--check names files edited by hand, missing, out of date and stale', () => {
    const out = tempDir('gen');
    generateAdapters(embeddedRegistry(), { outDir: out, wheel: true });
    const plugin = join(out, 'orbitkv-vllm', 'orbitkv_vllm', 'plugin.py');
    writeFileSync(plugin, `${readFileSync(plugin, 'utf8')}# hand edit\n`);
    rmSync(join(out, 'orbitkv-sglang', 'orbitkv_sglang', 'hooks.py'));
    const changed = registryAt(registryWith('rejections/rejection.vllm.multi-group.yaml', (doc) => doc.set('message', 'a changed message')));
    const drift = generateAdapters(changed, { outDir: out, check: true }).drift;
    const by = (code: string) => drift.filter((d) => d.code === code).map((d) => d.file!.slice(out.length + 1)).sort();
    assert.deepEqual(by('OKV5203'), ['orbitkv-vllm/orbitkv_vllm/plugin.py']);
    assert.deepEqual(by('OKV5201'), ['orbitkv-sglang/orbitkv_sglang/hooks.py']);
    assert.deepEqual(by('OKV5202'), [MANIFEST_NAME, 'orbitkv-vllm/README.md', 'orbitkv-vllm/orbitkv_vllm/_data.py', 'typescript/rejections.ts']);
    assert.deepEqual(by('OKV5204'), ['wheels/orbitkv_sglang-0.1.0-py3-none-any.whl', 'wheels/orbitkv_vllm-0.1.0-py3-none-any.whl']);
  });

  it('removes stale files recorded by the manifest, keeps hand-edited stale files, and --dry-run touches nothing', () => {
    const out = tempDir('gen');
    generateAdapters(embeddedRegistry(), { outDir: out, wheel: true });
    const wheels = ['wheels/orbitkv_sglang-0.1.0-py3-none-any.whl', 'wheels/orbitkv_vllm-0.1.0-py3-none-any.whl'];
    const dry = generateAdapters(embeddedRegistry(), { outDir: out, dryRun: true });
    assert.deepEqual(dry.removed, wheels);
    assert.deepEqual(dry.written, [MANIFEST_NAME]);
    for (const w of wheels) assert.ok(existsSync(join(out, w)));
    writeFileSync(join(out, wheels[0]!), 'edited');
    const run = generateAdapters(embeddedRegistry(), { outDir: out });
    assert.deepEqual(run.removed, [wheels[1]]);
    assert.deepEqual(codes(run.drift), ['OKV5203']);
    assert.ok(existsSync(join(out, wheels[0]!)) && !existsSync(join(out, wheels[1]!)));
  });

  it('a manifest entry outside the output folder is refused (OKV5011): nothing there is read or removed, and check exits 1', async () => {
    const base = tempDir('escape');
    const out = join(base, 'build', 'adapters');
    const victim = join(base, 'contracts', 'evidence', 'ledger.jsonl');
    mkdirSync(dirname(victim), { recursive: true });
    writeFileSync(victim, 'precious\n');
    const outside = join(base, 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'secret.txt'), 'secret\n');
    generateAdapters(embeddedRegistry(), { outDir: out });
    symlinkSync(outside, join(out, 'link'));
    const manifest = JSON.parse(readFileSync(join(out, MANIFEST_NAME), 'utf8')) as { files: Record<string, string> };
    const hash = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');
    // Each entry carries the real hash of its target, so it would pass for an unmodified stale file.
    manifest.files['../../contracts/evidence/ledger.jsonl'] = hash(victim);
    manifest.files[victim] = hash(victim);
    manifest.files['link/secret.txt'] = hash(join(outside, 'secret.txt'));
    manifest.files['typescript/../../../contracts/evidence/ledger.jsonl'] = hash(victim);
    writeFileSync(join(out, MANIFEST_NAME), JSON.stringify(manifest));
    const check = generateAdapters(embeddedRegistry(), { outDir: out, check: true });
    assert.deepEqual(codes(check.drift).filter((c) => c === 'OKV5011'), ['OKV5011', 'OKV5011', 'OKV5011', 'OKV5011']);
    const run = generateAdapters(embeddedRegistry(), { outDir: out });
    assert.deepEqual(run.removed, []);
    assert.deepEqual(codes(run.diagnostics).filter((c) => c === 'OKV5011'), ['OKV5011', 'OKV5011', 'OKV5011', 'OKV5011']);
    assert.equal(readFileSync(victim, 'utf8'), 'precious\n');
    assert.equal(readFileSync(join(outside, 'secret.txt'), 'utf8'), 'secret\n');
    writeFileSync(join(out, MANIFEST_NAME), JSON.stringify(manifest));
    const io = captureIo(REPO);
    assert.equal(await runCli(['generate', '--registry', 'contracts', '--out', out], io), 1, io.stdout);
    assert.ok(existsSync(victim));
    writeFileSync(join(out, MANIFEST_NAME), JSON.stringify(manifest));
    const main = captureIo(REPO);
    assert.equal(await runCli(['check', '--registry', 'contracts', '--out', out, '--no-wheel'], main), 1);
    assert.ok(existsSync(victim));
  });

  it('the CLI: generate exits 0 listing files; --check exits 1 naming the drifted file; bad options exit 2', async () => {
    const out = tempDir('cli');
    const io = captureIo(REPO);
    assert.equal(await runCli(['generate', '--registry', 'contracts', '--out', out], io), 0, io.stderr);
    assert.match(io.stdout, /wrote orbitkv-vllm\/pyproject\.toml/);
    writeFileSync(join(out, 'typescript', 'rejections.ts'), '// edited\n');
    const check = captureIo(REPO);
    assert.equal(await runCli(['generate', '--registry', 'contracts', '--out', out, '--check', '--format', 'json'], check), 1);
    const report = JSON.parse(check.stderr) as { diagnostics: { code: string; file: string }[] };
    assert.deepEqual(report.diagnostics.map((d) => d.code), ['OKV5203']);
    assert.match(report.diagnostics[0]!.file, /typescript\/rejections\.ts$/);
    assert.equal(await runCli(['generate', '--frobnicate'], captureIo(REPO)), 2);
    assert.equal(await runCli(['generate', '--adapter-version', 'not a version'], captureIo(REPO)), 2);
  });

  it('the CLI generates nothing from a registry with semantic errors', async () => {
    const dir = registryWith('rejections/rejection.vllm.multi-group.yaml', (doc) => doc.set('justifiedBy', ['gap.does-not-exist']));
    const out = join(tempDir('invalid'), 'out');
    const io = captureIo(REPO);
    assert.equal(await runCli(['generate', '--registry', dir, '--out', out, '--format', 'json'], io), 1);
    assert.ok(!existsSync(out), 'nothing written');
    const report = JSON.parse(io.stderr) as { diagnostics: { severity: string; contract?: string }[] };
    assert.ok(report.diagnostics.length > 0 && report.diagnostics.every((d) => d.severity === 'error'));
  });

  describe('planning diagnostics (the registry is data)', () => {
    it('warns for a runtime engine without a template and generates the others', () => {
      const dir = registryWith('engines/engine.lmcache.yaml', (doc) => doc.set('role', 'runtime'));
      const { diagnostics, plan } = renderAdapters(registryAt(dir));
      assert.deepEqual(codes(diagnostics), ['OKV5001']);
      assert.equal(diagnostics[0]!.contract, 'engine.lmcache');
      assert.ok(diagnostics[0]!.range, 'points at the engine name');
      assert.equal(plan.packages.length, 2);
    });

    it('rejects a hook implementation outside the adapter package or shadowing the installer', () => {
      const outside = registryWith('hooks/hook.sglang.init-cuda-graphs.yaml', (doc) => doc.set('implementation', 'elsewhere.hooks.before'));
      assert.deepEqual(codes(renderAdapters(registryAt(outside)).diagnostics), ['OKV5003']);
      const shadow = registryWith('hooks/hook.sglang.init-cuda-graphs.yaml', (doc) => doc.set('implementation', 'orbitkv_sglang.hooks.register_all'));
      assert.deepEqual(codes(renderAdapters(registryAt(shadow)).diagnostics), ['OKV5303']);
      const builtin = registryWith('hooks/hook.sglang.init-cuda-graphs.yaml', (doc) => doc.set('implementation', 'orbitkv_sglang.hooks.callable'));
      assert.deepEqual(codes(renderAdapters(registryAt(builtin)).diagnostics), ['OKV5303']);
      const privateName = registryWith('hooks/hook.sglang.init-cuda-graphs.yaml', (doc) => doc.set('implementation', 'orbitkv_sglang.hooks._before'));
      assert.deepEqual(codes(renderAdapters(registryAt(privateName)).diagnostics), ['OKV5004']);
      const result = generateAdapters(registryAt(shadow), { outDir: tempDir('nowrite') });
      assert.deepEqual(result.written, [], 'nothing is written when planning fails');
    });

    it('names a consumed symbol the engine template needs that the interface contract does not list', () => {
      const dir = registryWith('interfaces/interface.sglang.unified-cache.yaml', (doc) => {
        const symbols = doc.get('symbols') as { items: { get(k: string): unknown }[] };
        symbols.items = symbols.items.filter((item) => item.get('target') !== '--radix-cache-backend');
      });
      const { diagnostics, plan } = renderAdapters(registryAt(dir));
      assert.deepEqual(codes(diagnostics), ['OKV5006']);
      assert.match(diagnostics[0]!.message, /--radix-cache-backend/);
      assert.deepEqual(plan.packages.map((p) => p.engine.name), ['vllm'], 'the other engine still generates');
    });

    it('refuses two engines sharing one adapter package', () => {
      const dir = registryWith('interfaces/interface.sglang.unified-cache.yaml', (doc) => doc.set('adapterClass', 'orbitkv_vllm.linker.OrbitKVLinker'));
      const { diagnostics } = renderAdapters(registryAt(dir));
      assert.ok(diagnostics.length > 0 && diagnostics.every((d) => d.code === 'OKV5003'));
      assert.ok(diagnostics.some((d) => d.contract === 'interface.vllm.kv-connector' && /already the adapter of sglang/.test(d.message)));
    });

    it('rejects two hooks sharing one implementation', () => {
      const dir = registryWith('hooks/hook.sglang.prefill-add-one-req.yaml', (doc) => doc.set('implementation', 'orbitkv_sglang.hooks.before_init_cuda_graphs'));
      const { diagnostics } = renderAdapters(registryAt(dir));
      assert.deepEqual(codes(diagnostics), ['OKV5010']);
      assert.equal(diagnostics[0]!.contract, 'hook.sglang.prefill-add-one-req');
    });

    it('rejects a kept registry hook without a signature', () => {
      const dir = registryWith('hooks/hook.sglang.prefill-add-one-req.yaml', (doc) => doc.delete('signature'));
      assert.deepEqual(codes(renderAdapters(registryAt(dir)).diagnostics), ['OKV5005']);
    });

    it('follows the contracts: a renamed rejection reaches the generated data', () => {
      const dir = registryWith('rejections/rejection.vllm.multi-group.yaml', (doc) => doc.set('id', 'rejection.vllm.groups-renamed'));
      const { plan } = renderAdapters(registryAt(dir));
      const vllm = plan.packages.find((p) => p.engine.name === 'vllm')!;
      assert.ok((vllm.data.rejections as { id: string }[]).some((r) => r.id === 'rejection.vllm.groups-renamed'));
    });
  });
});
