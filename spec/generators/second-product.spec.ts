import assert from 'node:assert/strict';
import { cpSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runCli } from '../../engine/cli/main.js';
import { productOf } from '../../engine/registry/index.js';
import { planAdapters } from '../../generators/index.js';
import { captureIo } from '../support/io.js';
import { REPO, python, registryAt, tempDir } from './support.js';

const TESSERA = join(REPO, 'spec', 'fixtures', 'tessera');

/** Every file under `dir` (wheels included, as bytes). */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]));
}

describe('a second product registry (spec/fixtures/tessera): validate, generate, preflight, package-check', function () {
  this.timeout(120_000);
  let out = '';

  before(async () => {
    out = tempDir('tessera');
    const io = captureIo();
    assert.equal(await runCli(['generate', '--registry', TESSERA, '--out', out, '--wheel'], io), 0, io.stderr);
    generateLog = io.stderr;
  });
  let generateLog = '';

  it('generate names the engine that got no package and why', () => {
    assert.match(generateLog, /warning OKV5001/);
    assert.match(generateLog, /^generate: no adapter package for trtllm \(OKV5001\)$/m);
  });

  it('validates with no findings', async () => {
    const io = captureIo();
    assert.equal(await runCli(['validate', '--registry', TESSERA, '--format', 'json'], io), 0, io.stderr);
    assert.deepEqual((JSON.parse(io.stdout) as { diagnostics: unknown[] }).diagnostics, []);
  });

  it('generates its own names: packages, entry points, env prefix, and names the engine without a template', () => {
    const plan = planAdapters(registryAt(TESSERA), '0');
    assert.deepEqual(plan.packages.map((p) => [p.importName, p.entryPointName]), [['tessera_sglang', 'tessera'], ['tessera_vllm', 'tessera']]);
    assert.deepEqual(plan.skipped, [{ engine: 'trtllm', code: 'OKV5001' }]);
    assert.deepEqual(plan.diagnostics.map((d) => [d.code, d.contract]), [['OKV5001', 'engine.trtllm']]);
    const sglang = plan.packages.find((p) => p.engine.name === 'sglang')!;
    assert.equal((sglang.data.template as { style: string }).style, 'radix-backend');
    assert.deepEqual(Object.keys(sglang.modules).sort(), ['admission.py', 'backend.py', 'completion.py', 'hooks.py', 'linker.py', 'lookup_gate.py', 'plugin.py', 'selection.py']);
    assert.deepEqual((sglang.data.template as { hooks: { id: string; role: string }[] }).hooks.map((h) => [h.id, h.role]), [['hook.sglang.warm-on-enqueue', 'start-lookup-on-enqueue']]);
    assert.deepEqual((sglang.data.manager as { socketEnv: string; folder: string; serve: string }), { product: 'Tessera', socketEnv: 'TSR_MANAGER_SOCKET', folder: 'tessera', serve: 'tessera serve' });
    assert.match(readFileSync(join(out, 'tessera-sglang', 'tessera_sglang', 'manager.py'), 'utf8'), /_data\.DATA\["manager"\]\["socketEnv"\]/);
    // vLLM turns its hybrid KV cache manager off itself for a connector without SupportsHMA: no flag is required.
    const vllmReadme = readFileSync(join(out, 'tessera-vllm', 'README.md'), 'utf8');
    assert.match(vllmReadme, /turns its hybrid KV cache manager off by itself for a connector that does not implement `SupportsHMA`/);
    assert.doesNotMatch(vllmReadme, /requires? `?--disable-hybrid-kv-cache-manager/);
  });

  it('"orbitkv" appears nowhere in its generated packages (sources, metadata, wheels)', () => {
    const files = [...filesUnder(join(out, 'tessera-sglang')), ...filesUnder(join(out, 'tessera-vllm')), ...filesUnder(join(out, 'wheels')), ...filesUnder(join(out, 'typescript'))];
    assert.ok(files.length > 20);
    for (const file of files) {
      let text = readFileSync(file).toString('latin1');
      // Wheels are zip files: read their members' names and (stored or deflated) contents through Python.
      if (file.endsWith('.whl')) text = python(['-c', 'import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\nprint("\\n".join(n + "\\n" + z.read(n).decode() for n in z.namelist()))', file]).stdout;
      assert.doesNotMatch(text, /orbitkv/i, file);
    }
    assert.ok(statSync(join(out, 'wheels')).isDirectory());
    assert.ok(files.includes(join(out, 'typescript', 'rejections.ts')));
  });

  it("its TypeScript rejection module (the Manager's) names the product and reads profiles as the Python preflight does", async () => {
    const mod = (await import(pathToFileURL(join(out, 'typescript', 'rejections.ts')).href)) as {
      PRODUCT: string;
      evaluate(p: unknown): { accepted: boolean; pin: { matches: boolean }; rejections: { id: string }[] };
      describe(entry: unknown): string;
    };
    assert.equal(mod.PRODUCT, 'Tessera');
    // A local-part version matches the pin; a first segment that is not a root resolves under vllm_config.
    const rejected = mod.evaluate({ engine: 'vllm', version: '0.31.0+cu130', env: {}, config: { vllm_config: { speculative_config: { method: 'eagle' } } } });
    assert.equal(rejected.pin.matches, true);
    assert.deepEqual(rejected.rejections.map((r) => r.id), ['rejection.vllm.speculative']);
    assert.match(mod.describe(rejected.rejections[0]), /^Tessera rejection rejection\.vllm\.speculative: /);
    assert.equal(mod.evaluate({ engine: 'vllm', version: '0.31.0+cu130', env: {}, config: {} }).accepted, true);
  });

  it('its REGISTRY.md is headed with its product name', async () => {
    const dir = join(tempDir('tessera-report'), 'registry');
    cpSync(TESSERA, dir, { recursive: true });
    const io = captureIo();
    assert.equal(await runCli(['report', '--registry', dir], io), 0, io.stderr);
    const report = readFileSync(join(dir, 'REGISTRY.md'), 'utf8');
    assert.match(report, /^# Tessera contract registry$/m);
    assert.doesNotMatch(report, /^# .*orbitkv/im);
  });

  it('preflights a profile with the generated package (3 rejected, 0 accepted)', () => {
    const site = join(out, 'tessera-vllm');
    const dir = tempDir('tessera-profile');
    const profile = (config: object) => {
      const path = join(dir, `p${Math.random().toString(36).slice(2)}.json`);
      writeFileSync(path, JSON.stringify({ engine: 'vllm', version: '0.31.0+cu130', env: {}, config }));
      return path;
    };
    const rejected = python(['-m', 'tessera_vllm.preflight', '--profile', profile({ vllm_config: { speculative_config: { method: 'eagle' } } })], { env: { PYTHONPATH: site } });
    assert.equal(rejected.status, 3, rejected.stderr);
    assert.match(rejected.stderr, /^Tessera rejection rejection\.vllm\.speculative: /m);
    const accepted = python(['-m', 'tessera_vllm.preflight', '--profile', profile({})], { env: { PYTHONPATH: site } });
    assert.equal(accepted.status, 0, accepted.stderr);
  });

  it('carries the metadata a packager expects: license, URLs, classifiers, a preflight script, py.typed, no second build backend', () => {
    const pyproject = readFileSync(join(out, 'tessera-vllm', 'pyproject.toml'), 'utf8');
    assert.match(pyproject, /^license = "MIT"$/m);
    assert.match(pyproject, /^"Homepage" = "https:\/\/tessera\.example\/"$/m);
    assert.match(pyproject, /^classifiers = \[.*"Typing :: Typed".*\]$/m);
    assert.match(pyproject, /^\[project\.scripts\]\n"tessera-vllm-preflight" = "tessera_vllm\.preflight:run"$/m);
    assert.doesNotMatch(pyproject, /build-system|setuptools/);
    const wheel = readdirSync(join(out, 'wheels')).find((w) => w.startsWith('tessera_vllm'))!;
    const meta = python(['-c', 'import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\nprint(z.read("tessera_vllm-0.1.0.dist-info/METADATA").decode())\nprint(z.read("tessera_vllm-0.1.0.dist-info/entry_points.txt").decode())\nprint("py.typed" if "tessera_vllm/py.typed" in z.namelist() else "")', join(out, 'wheels', wheel)]).stdout;
    for (const line of ['License: MIT', 'Project-URL: Homepage, https://tessera.example/', 'Classifier: Typing :: Typed', '[console_scripts]', 'tessera-vllm-preflight = tessera_vllm.preflight:run', 'py.typed']) assert.ok(meta.includes(line), line);
  });

  it('package-checks its wheels against its own wheel-contents policy', async () => {
    const wheels = readdirSync(join(out, 'wheels')).map((w) => join(out, 'wheels', w));
    const io = captureIo();
    assert.equal(await runCli(['package-check', '--registry', TESSERA, ...wheels], io), 0, io.stderr + io.stdout);
  });
});

describe('planning a second product: what the registry expects, integration styles, names', () => {
  /** A copy of the tessera registry with one file's text replaced. */
  const edited = (file: string, from: string, to: string): string => {
    const dir = join(tempDir('tessera-edit'), 'registry');
    cpSync(TESSERA, dir, { recursive: true });
    const path = join(dir, file);
    const text = readFileSync(path, 'utf8');
    assert.ok(text.includes(from), `${from} not in ${file}`);
    writeFileSync(path, text.replace(from, to));
    return dir;
  };
  const codes = (dir: string) => planAdapters(registryAt(dir), '0').diagnostics.map((d) => d.code);

  it('an engine without a template that loads plugins expects an adapter: an error, and generate fails', async () => {
    const dir = edited('engines/engine.trtllm.yaml', 'package: tensorrt_llm', 'package: tensorrt_llm\nplugins:\n  entryPointGroup: tensorrt_llm.plugins');
    assert.deepEqual(codes(dir), ['OKV5301']);
    const io = captureIo();
    assert.equal(await runCli(['generate', '--registry', dir, '--out', tempDir('tessera-fail')], io), 1);
    assert.match(io.stderr, /OKV5301/);
  });

  it('an interface consuming both SGLang styles, or neither, is a named error', () => {
    const both = edited('interfaces/interface.sglang.radix-backend.yaml', '  - target: --radix-cache-backend\n', '  - target: sglang.srt.mem_cache.hicache_storage.HiCacheStorage\n    kind: class\n    role: Also a storage backend.\n  - target: --radix-cache-backend\n');
    assert.deepEqual(codes(both).sort(), ['OKV5001', 'OKV5305']);
    const neither = edited('interfaces/interface.sglang.radix-backend.yaml', '  - target: sglang.srt.mem_cache.registry.register_radix_cache_backend\n    kind: function', '  - target: sglang.srt.mem_cache.registry.other_registration\n    kind: function');
    assert.deepEqual(codes(neither).sort(), ['OKV5001', 'OKV5304']);
  });

  it('the HiCache storage style is refused at the storage base (OKV5317), and its hook, which has no role there, at its target (OKV5316)', () => {
    const from = "  - target: sglang.srt.mem_cache.registry.register_radix_cache_backend\n    kind: function\n    role: Registers Tessera's backend; its factory builds the engine's Unified tree with Tessera's linker.\n";
    const dir = edited('interfaces/interface.sglang.radix-backend.yaml', from, '  - target: sglang.srt.mem_cache.hicache_storage.HiCacheStorage\n    kind: class\n    role: Storage base.\n  - target: sglang.srt.mem_cache.hicache_storage.HiCacheStorage.batch_get\n    kind: method\n    role: Reads.\n');
    const text = readFileSync(join(dir, 'interfaces', 'interface.sglang.radix-backend.yaml'), 'utf8').split('\n');
    const hook = readFileSync(join(dir, 'hooks', 'hook.sglang.warm-on-enqueue.yaml'), 'utf8').split('\n');
    const plan = planAdapters(registryAt(dir), '0');
    const found = (code: string) => plan.diagnostics.filter((d) => d.code === code).map((d) => [d.contract, d.file, d.range?.line]);
    assert.deepEqual(found('OKV5317'), [['interface.sglang.radix-backend', 'interfaces/interface.sglang.radix-backend.yaml', text.findIndex((l) => l.endsWith('hicache_storage.HiCacheStorage')) + 1]]);
    assert.deepEqual(found('OKV5316'), [['hook.sglang.warm-on-enqueue', 'hooks/hook.sglang.warm-on-enqueue.yaml', hook.findIndex((l) => l.startsWith('target: ')) + 1]]);
    assert.ok(!plan.packages.some((p) => p.engine.name === 'sglang'));
  });

  it("an adapter package outside the product's prefix is a named error", () => {
    const dir = edited('policies/policy.product.yaml', 'packagePrefix: tessera', 'packagePrefix: mosaic');
    assert.deepEqual([...new Set(codes(dir))].sort(), ['OKV5001', 'OKV5302']);
  });
});

describe('product identity (engine/registry/product.ts)', () => {
  it('comes from the product policy, else from the adapter package names', () => {
    assert.deepEqual([productOf(registryAt(join(REPO, 'contracts'))).name, productOf(registryAt(join(REPO, 'contracts'))).envPrefix], ['OrbitKV', 'ORBITKV']);
    assert.equal(productOf(registryAt(TESSERA)).name, 'Tessera');
    const dir = join(tempDir('tessera-noproduct'), 'registry');
    cpSync(TESSERA, dir, { recursive: true });
    rmSync(join(dir, 'policies', 'policy.product.yaml'));
    const derived = productOf(registryAt(dir));
    assert.deepEqual([derived.contract, derived.name, derived.packagePrefix, derived.envPrefix], [null, 'tessera', 'tessera', 'TESSERA']);
  });
});
