import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { verifyEngine, type VerifyReport } from '../../engine/verify/index.js';
import { ENGINE_FIXTURES, embeddedRegistry } from './checkout.js';

/** The embedded registry's checks against the pinned fixture trees: everything holds. */
describe('verify: the embedded registry against the pinned engine trees', function () {
  const reports: Record<string, VerifyReport> = {};

  before(async function () {
    const registry = embeddedRegistry();
    reports['vllm'] = await verifyEngine({ registry, engine: 'vllm', source: join(ENGINE_FIXTURES, 'vllm-0.31.0') });
    reports['sglang'] = await verifyEngine({ registry, engine: 'sglang', source: join(ENGINE_FIXTURES, 'sglang-0.5.21') });
  });

  for (const engine of ['vllm', 'sglang']) {
    describe(engine, function () {
      it('passes: every kept hook target and consumed symbol is present, every gap assertion holds', function () {
        const report = reports[engine]!;
        assert.equal(report.verdict, 'ok');
        const failing = report.targets.filter((t) => !t.informational && t.outcome !== 'present');
        assert.deepEqual(failing.map((t) => `${t.contract} ${t.target} ${t.outcome} ${t.detail ?? ''}`), []);
        assert.deepEqual(report.assertions.filter((a) => a.outcome !== 'holds').map((a) => a.contract), []);
        assert.deepEqual(report.diagnostics.map((d) => d.code), []);
      });

      it("checks every hook, interface symbol and gap of the engine in the registry", function () {
        const registry = embeddedRegistry();
        const report = reports[engine]!;
        const hookTargets = registry.ofKind('hook').filter((h) => h.engine === engine).flatMap((h) => [h.target, ...(h.alsoTargets ?? [])].map((t) => `${h.id} ${t}`));
        const symbols = registry.ofKind('interface').filter((i) => i.engine === engine).flatMap((i) => i.symbols.map((s) => `${i.id} ${s.target}`));
        assert.deepEqual(report.targets.map((t) => `${t.contract} ${t.target}`).sort(), [...hookTargets, ...symbols].sort());
        assert.deepEqual(report.assertions.map((a) => a.contract).sort(), registry.ofKind('gap').filter((g) => g.engine === engine).map((g) => g.id).sort());
        for (const t of report.targets) assert.equal(t.informational, registry.get(t.contract)?.kind === 'hook' && (registry.get(t.contract) as { disposition: { state: string } }).disposition.state === 'removed', t.target);
      });

      it('hashes exactly the files it read', function () {
        const report = reports[engine]!;
        assert.ok(Object.keys(report.files).length >= 20);
        for (const [file, digest] of Object.entries(report.files)) {
          assert.equal(digest, createHash('sha256').update(readFileSync(join(report.source, file))).digest('hex'), file);
        }
        for (const t of report.targets.filter((x) => x.outcome === 'present' && x.location)) assert.ok(t.files.every((f) => report.files[f]), t.target);
      });
    });
  }

  it("reads the checkout's own version and commit and compares them with the pin", function () {
    const vllm = reports['vllm']!.version!;
    assert.equal(vllm.version, '0.31.0');
    assert.equal(vllm.versionFrom, 'vllm/_version.py', 'follows version.py to the setuptools-scm file, past the `dev` fallback');
    assert.equal(vllm.versionMatches, true);
    assert.equal(vllm.commit, 'db9527a46');
    assert.equal(vllm.commitMatches, true);
    const sglang = reports['sglang']!.version!;
    assert.equal(sglang.version, '0.5.21');
    assert.equal(sglang.versionFrom, 'python/sglang/_version.py', 'follows the try-import to the generated file; the except fallbacks are not versions');
    assert.equal(sglang.commit, undefined);
  });

  it('finds SGLang under python/ and vLLM at the root', function () {
    assert.equal(reports['sglang']!.packageDir, 'python/sglang');
    assert.equal(reports['vllm']!.packageDir, 'vllm');
  });

  it('reports removed hooks informationally, present or not', function () {
    const removed = reports['sglang']!.targets.filter((t) => t.informational);
    assert.ok(removed.some((t) => t.outcome === 'missing' && t.target.endsWith('Scheduler._release_aborted_request')));
    assert.ok(removed.some((t) => t.outcome === 'present' && t.target.endsWith('MooncakeKVReceiver.poll')));
    assert.equal(reports['sglang']!.verdict, 'ok');
  });

  it('binds signatures like inspect.signature: classmethod cls and constructor self are bound away', function () {
    const byTarget = new Map(reports['vllm']!.targets.map((t) => [t.target, t]));
    assert.equal(byTarget.get('vllm.distributed.kv_transfer.kv_connector.factory.KVConnectorFactory.register_connector')?.outcome, 'present');
    assert.equal(byTarget.get('vllm.distributed.kv_transfer.kv_connector.v1.base.KVConnectorBase_V1')?.outcome, 'present');
  });

  it('checks env vars, CLI flags and entry-point groups as literals or bound names', function () {
    const byTarget = new Map([...reports['vllm']!.targets, ...reports['sglang']!.targets].map((t) => [t.target, t]));
    assert.equal(byTarget.get('vllm.general_plugins')?.location?.file, 'vllm/plugins/__init__.py');
    assert.equal(byTarget.get('--disaggregation-mode')?.detail, 'add_argument');
    assert.equal(byTarget.get('--disaggregation-mode')?.location?.file, 'python/sglang/srt/server_args.py', 'the mention in python/sglang/test/ is not a definition');
    assert.equal(byTarget.get('--radix-cache-backend')?.detail, 'dataclass field ServerArgs.radix_cache_backend');
    assert.equal(byTarget.get('SGLANG_DISAGGREGATION_DEFERRED_DECODE_KV_RELEASE')?.detail, 'bound as Envs.SGLANG_DISAGGREGATION_DEFERRED_DECODE_KV_RELEASE');
    assert.equal(byTarget.get('--disable-hybrid-kv-cache-manager')?.detail, 'dataclass field EngineArgs.disable_hybrid_kv_cache_manager');
  });
});
