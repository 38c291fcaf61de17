import { strict as assert } from 'node:assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BodyReader } from '../../engine/verify/body-reader.js';
import { loadPythonParser } from '../../engine/verify/grammar.js';
import { ModuleIndex } from '../../engine/verify/module-index.js';
import { scanFiles } from '../../engine/verify/pool.js';
import { SymbolResolver } from '../../engine/verify/resolve.js';
import { DEFAULT_MAX_FILE_BYTES } from '../../engine/verify/scan-file.js';
import { readSourceTree } from '../../engine/verify/source-tree.js';
import { type AssertionCheck, type VerifyReport, verifyEngine } from '../../engine/verify/index.js';
import { ENGINE_FIXTURES, checkout, embeddedRegistry, removeCheckouts } from './checkout.js';

/**
 * The patterns the engines' own sources have (read from SGLang and vLLM main of mid-2026) and
 * the fixtures carry: calls through helpers, branch conditions, bases bound under `if`,
 * namespace packages, re-exporting packages with alias assignments.
 */
async function report(engine: 'vllm' | 'sglang', source?: string): Promise<VerifyReport> {
  return verifyEngine({ registry: embeddedRegistry(), engine, source: source ?? join(ENGINE_FIXTURES, engine === 'vllm' ? 'vllm-0.31.0' : 'sglang-0.5.21'), threads: 0 });
}

function part(r: VerifyReport, gap: string, index: number): AssertionCheck {
  const found = r.assertions.find((a) => a.contract === gap)?.parts?.[index];
  assert.ok(found, `${gap} part ${index}`);
  return found;
}

async function sglangResolver(source = join(ENGINE_FIXTURES, 'sglang-0.5.21')): Promise<SymbolResolver> {
  const tree = readSourceTree(source, 'sglang', [])!;
  const scans = await scanFiles(tree.files, { maxFileBytes: DEFAULT_MAX_FILE_BYTES, needles: [], bodies: [] }, 0);
  return new SymbolResolver(new ModuleIndex(tree, scans));
}

describe('verify: real engine patterns', function () {
  after(removeCheckouts);

  describe('calls through helpers', function () {
    it("holds through self._do_release (SGLang's deferred release) and prints the path that made it hold", async function () {
      const r = await report('sglang');
      const release = part(r, 'gap.sglang.deferred-release-timeout', 0);
      assert.equal(release.outcome, 'holds');
      assert.deepEqual(release.trail, ['self._do_release at python/sglang/srt/disaggregation/decode.py:52 → DecodeTransferQueue._do_release (python/sglang/srt/disaggregation/decode.py)']);
      assert.match(release.detail ?? '', /release_kv_cache called at python\/sglang\/srt\/disaggregation\/decode\.py:33 via self\._do_release/);
    });

    it('follows a module imported by name (kv_cache_builder.build_kv_cache → create_tree_cache) and hashes the helper file', async function () {
      const r = await report('sglang');
      const order = part(r, 'gap.sglang.external-linker-factory', 0);
      assert.equal(order.outcome, 'holds');
      assert.deepEqual(order.trail, ['kv_cache_builder.build_kv_cache at python/sglang/srt/managers/scheduler.py:51 → build_kv_cache (python/sglang/srt/mem_cache/kv_cache_builder.py)']);
      assert.ok(order.files.includes('python/sglang/srt/mem_cache/kv_cache_builder.py'));
    });

    it("follows an inherited staticmethod and a call through the class's own name (vLLM V1's connector context)", async function () {
      const r = await report('vllm');
      const order = part(r, 'gap.vllm.v1-load-ordering', 2);
      assert.equal(order.outcome, 'holds');
      assert.deepEqual(order.trail?.map((s) => s.split(' → ')[1]), ['KVConnectorModelRunnerMixin.maybe_get_kv_connector_output (vllm/v1/worker/kv_connector_model_runner_mixin.py)', 'KVConnectorModelRunnerMixin._get_kv_connector_output (vllm/v1/worker/kv_connector_model_runner_mixin.py)']);
    });

    it('stops at the depth bound and at calls on run-time objects', async function () {
      const source = checkout('sglang-0.5.21');
      const file = join(source, 'python/sglang/srt/disaggregation/decode.py');
      const text = readFileSync(file, 'utf8');
      // four helpers deep: one more than MAX_CALL_DEPTH
      const deep = text.replace('            self._do_release(decode_req, idx)', '            self._hop1(decode_req, idx)').replace('    def _do_release(', ['    def _hop1(self, r, i):', '        self._hop2(r, i)', '', '    def _hop2(self, r, i):', '        self._hop3(r, i)', '', '    def _hop3(self, r, i):', '        self._do_release(r, i)', '', '    def _do_release('].join('\n'));
      writeFileSync(file, deep);
      assert.equal(part(await report('sglang', source), 'gap.sglang.deferred-release-timeout', 0).outcome, 'no-longer-holds');
      // a call on another object is not followed: its target is a run-time value
      writeFileSync(file, text.replace('            self._do_release(decode_req, idx)', '            self.scheduler._do_release(decode_req, idx)'));
      const r = await report('sglang', source);
      assert.equal(part(r, 'gap.sglang.deferred-release-timeout', 0).outcome, 'no-longer-holds');
      assert.match(part(r, 'gap.sglang.deferred-release-timeout', 0).detail ?? '', /no call to release_kv_cache \(helpers followed up to 3 deep\)/);
    });

    it('reads a helper body on demand only while the file has the bytes the scan hashed', async function () {
      const source = checkout('sglang-0.5.21');
      const tree = readSourceTree(source, 'sglang', [])!;
      const scans = await scanFiles(tree.files, { maxFileBytes: DEFAULT_MAX_FILE_BYTES, needles: [], bodies: [] }, 0);
      const index = new ModuleIndex(tree, scans);
      const decode = index.byFile.get('python/sglang/srt/disaggregation/decode.py')!;
      const release = decode.scan.definitions.find((d) => d.qualname === 'DecodeTransferQueue._do_release');
      assert.ok(release?.kind === 'function' && !release.bodyRead && release.calls.length === 0);
      const parser = await loadPythonParser();
      try {
        const kv = index.byFile.get('python/sglang/srt/mem_cache/kv_cache_builder.py')!;
        writeFileSync(join(source, kv.file), `${readFileSync(join(source, kv.file), 'utf8')}\n# edited after the scan\n`);
        const reader = new BodyReader(parser, tree.root);
        assert.equal(reader.ensure(kv), false, 'changed since the scan: not read');
        assert.equal(reader.ensure(decode), true);
        assert.ok(release.bodyRead && release.calls.some((c) => c.name === 'release_kv_cache'));
      } finally {
        parser.delete();
      }
    });
  });

  describe('branches', function () {
    it("newer vLLM's pre_forward: preemptions on every step, loads only when has_sync_kv_loads, async loads in post_forward", async function () {
      const r = await report('vllm');
      assert.deepEqual(r.assertions.find((a) => a.contract === 'gap.vllm.v2-preforward-ordering')?.parts?.map((p) => `${p.form} ${p.outcome}`), ['call-order holds', 'call-branch holds', 'call-branch holds', 'calls holds']);
      assert.equal(part(r, 'gap.vllm.v2-preforward-ordering', 2).detail, '_start_load_kv at line 39 runs under scheduler_output.has_sync_kv_loads');
      assert.equal(part(r, 'gap.vllm.v1-load-ordering', 1).detail, 'handle_preemptions at line 34 runs under has_kv_transfer_group()');
    });

    it('flips when the load starts on every step, or preemptions move under a condition', async function () {
      const source = checkout('vllm-0.31.0');
      const file = join(source, 'vllm/v1/worker/gpu/kv_connector.py');
      const text = readFileSync(file, 'utf8');
      writeFileSync(file, text.replace('        if scheduler_output.has_sync_kv_loads:\n            self._start_load_kv()', '        self._start_load_kv()').replace('        self.kv_connector.handle_preemptions(metadata)', '        if scheduler_output.preempted_req_ids:\n            self.kv_connector.handle_preemptions(metadata)'));
      const r = await report('vllm', source);
      assert.deepEqual(r.assertions.find((a) => a.contract === 'gap.vllm.v2-preforward-ordering')?.parts?.map((p) => p.outcome), ['holds', 'no-longer-holds', 'no-longer-holds', 'holds']);
      assert.equal(part(r, 'gap.vllm.v2-preforward-ordering', 1).detail, 'handle_preemptions at line 35 runs under scheduler_output.preempted_req_ids');
      assert.equal(part(r, 'gap.vllm.v2-preforward-ordering', 2).detail, '_start_load_kv at line 39 runs unconditionally');
      // the else branch is `not X`
      writeFileSync(file, text.replace('        if scheduler_output.has_sync_kv_loads:\n            self._start_load_kv()', '        if scheduler_output.has_sync_kv_loads:\n            pass\n        else:\n            self._start_load_kv()'));
      assert.equal(part(await report('vllm', source), 'gap.vllm.v2-preforward-ordering', 2).detail, '_start_load_kv at line 41 runs under not scheduler_output.has_sync_kv_loads');
    });
  });

  describe('bases bound under if', function () {
    it('a member is missing when every alternative lacks it, and undecidable when only one has it', async function () {
      const resolver = await sglangResolver();
      const missing = resolver.resolve('sglang.srt.managers.scheduler.Scheduler.no_such_method');
      assert.ok(!missing.found);
      assert.equal(`${missing.outcome} ${missing.reason}`, 'missing attribute-missing');
      const onlyMps = resolver.resolve('sglang.srt.managers.scheduler.Scheduler.event_loop_overlap_mlx');
      assert.ok(!onlyMps.found);
      assert.equal(`${onlyMps.outcome} ${onlyMps.reason}`, 'unresolvable conditional-definition');
      assert.match(onlyMps.detail, /sglang\.srt\.hardware_backend\.mlx\.scheduler_mixin\.SchedulerMlxOverlapMixin but not on sglang\.srt\.managers\.scheduler\.SchedulerMlxOverlapMixin/);
      const everywhere = resolver.resolve('sglang.srt.managers.scheduler.Scheduler.process_decode_queue');
      assert.ok(everywhere.found, 'found on an unconditional base');
    });

    it('present when every alternative has it', async function () {
      const source = checkout('sglang-0.5.21');
      const file = join(source, 'python/sglang/srt/managers/scheduler.py');
      writeFileSync(file, readFileSync(file, 'utf8').replace('    class SchedulerMlxOverlapMixin:\n        pass', '    class SchedulerMlxOverlapMixin:\n        def event_loop_overlap_mlx(self):\n            raise RuntimeError("MPS only")'));
      const r = (await sglangResolver(source)).resolve('sglang.srt.managers.scheduler.Scheduler.event_loop_overlap_mlx');
      assert.ok(r.found);
      assert.equal(r.inheritedFrom, 'sglang.srt.hardware_backend.mlx.scheduler_mixin.SchedulerMlxOverlapMixin');
    });
  });

  describe('namespace and re-exporting packages', function () {
    it('a namespace package resolves, and a name it lacks is reported against it (not as its parent)', async function () {
      const resolver = await sglangResolver();
      assert.ok(resolver.resolve('sglang.srt.managers.scheduler.Scheduler').found);
      const r = resolver.resolve('sglang.srt.disaggregation.PDTransferEvent');
      assert.ok(!r.found);
      assert.equal(`${r.outcome} ${r.reason}`, 'missing module-missing');
      assert.match(r.detail, /^no module sglang\.srt\.disaggregation\.PDTransferEvent: sglang\.srt\.disaggregation is a namespace package \(python\/sglang\/srt\/disaggregation\/, no __init__\.py\)/);
      assert.deepEqual(r.files, [], 'a folder is not a file to hash');
      const deeper = resolver.resolve('sglang.srt.no_such_pkg.Thing');
      assert.ok(!deeper.found);
      assert.match(deeper.detail, /sglang\.srt is a namespace package/);
    });

    it("vLLM's NIXL package: a re-export of an alias assignment reaches the class", async function () {
      const r = await report('vllm');
      const nixl = r.targets.find((t) => t.target === 'vllm.distributed.kv_transfer.kv_connector.v1.nixl.NixlConnector')!;
      assert.equal(nixl.outcome, 'present');
      assert.equal(nixl.location?.file, 'vllm/distributed/kv_transfer/kv_connector/v1/nixl/connector.py');
      assert.deepEqual(nixl.files, ['vllm/distributed/kv_transfer/kv_connector/v1/nixl/__init__.py', 'vllm/distributed/kv_transfer/kv_connector/v1/nixl/connector.py']);
    });
  });
});
