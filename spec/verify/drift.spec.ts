import { strict as assert } from 'node:assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../../engine/cli/main.js';
import { verifyEngine, type TargetCheck, type VerifyReport } from '../../engine/verify/index.js';
import { captureIo } from '../support/io.js';
import { checkout, embeddedRegistry, removeCheckouts } from './checkout.js';

async function verify(engine: string, pinned: string, overlay: string): Promise<VerifyReport> {
  return verifyEngine({ registry: embeddedRegistry(), engine, source: checkout(pinned, overlay), threads: 0 });
}

function target(report: VerifyReport, contract: string, suffix = ''): TargetCheck {
  const found = report.targets.find((t) => t.contract === contract && t.target.endsWith(suffix));
  assert.ok(found, `${contract} ${suffix}`);
  return found;
}

/** Everything except the named contracts still holds, so each variant flips only what it should. */
function othersHold(report: VerifyReport, flipped: string[]): void {
  const off = report.targets.filter((t) => !t.informational && t.outcome !== 'present' && !flipped.includes(t.contract));
  assert.deepEqual(off.map((t) => `${t.contract} ${t.target} ${t.outcome}`), []);
  assert.deepEqual(report.assertions.filter((a) => a.outcome !== 'holds' && !flipped.includes(a.contract)).map((a) => a.contract), []);
}

describe('verify: drifted engine trees flip the right results', function () {
  after(removeCheckouts);

  it('renamed method: the hook target is missing and the run fails (exit 1, one line saying so)', async function () {
    const report = await verify('sglang', 'sglang-0.5.21', 'sglang-0.5.21-renamed-method');
    const t = target(report, 'hook.sglang.init-cuda-graphs');
    assert.equal(t.outcome, 'missing');
    assert.equal(t.reason, 'attribute-missing');
    assert.equal(report.verdict, 'failed');
    othersHold(report, ['hook.sglang.init-cuda-graphs']);
    const io = captureIo();
    const code = await runCli(['verify', '--engine', 'sglang', '--source', checkout('sglang-0.5.21', 'sglang-0.5.21-renamed-method'), '--threads', '0'], io);
    assert.equal(code, 1);
    assert.match(io.stdout, /^missing +hook\.sglang\.init-cuda-graphs +sglang\.srt\.managers\.tp_worker\.TpModelWorker\.init_cuda_graphs/m);
  });

  it('changed signature: a default added and a default changed, each with a readable diff', async function () {
    const report = await verify('sglang', 'sglang-0.5.21', 'sglang-0.5.21-changed-signature');
    const add = target(report, 'hook.sglang.prefill-add-one-req');
    assert.equal(add.outcome, 'signature-changed');
    assert.equal(add.diff?.expected, '(self, req, has_chunked_req, truncation_align_size)');
    assert.equal(add.diff?.found, '(self, req, has_chunked_req, truncation_align_size=None)');
    assert.deepEqual(add.diff?.differences, ["parameter 4 'truncation_align_size': default added (None)"]);
    const queue = target(report, 'hook.sglang.add-request-to-queue');
    assert.equal(queue.outcome, 'signature-changed');
    assert.deepEqual(queue.diff?.differences, ["parameter 3 'is_retracted': default False → True"]);
    othersHold(report, ['hook.sglang.prefill-add-one-req', 'hook.sglang.add-request-to-queue']);
    const io = captureIo();
    assert.equal(await runCli(['verify', '--engine', 'sglang', '--source', checkout('sglang-0.5.21', 'sglang-0.5.21-changed-signature'), '--threads', '0'], io), 1);
    assert.match(io.stdout, /^signature-changed +hook\.sglang\.prefill-add-one-req .*\n +expected \(self, req, has_chunked_req, truncation_align_size\)\n +found +\(self, req, has_chunked_req, truncation_align_size=None\)/m);
  });

  it('lookup returns a ticket: the gap no longer holds and the consumed symbol changed its return', async function () {
    const report = await verify('sglang', 'sglang-0.5.21', 'sglang-0.5.21-lookup-ticket');
    const gap = report.assertions.find((a) => a.contract === 'gap.sglang.lookup-ready-boundaries')!;
    assert.equal(gap.outcome, 'no-longer-holds');
    assert.equal(gap.detail, 'annotation: LookupTicket');
    const lookup = target(report, 'interface.sglang.unified-cache', 'UnifiedCacheLinker.lookup');
    assert.equal(lookup.outcome, 'signature-changed');
    assert.deepEqual(lookup.diff?.differences, ['return annotation list[int] → LookupTicket']);
    othersHold(report, ['gap.sglang.lookup-ready-boundaries', 'interface.sglang.unified-cache']);
  });

  it('reordered calls: the V2 ordering gap no longer holds, only in its call-order part', async function () {
    const report = await verify('vllm', 'vllm-0.31.0', 'vllm-0.31.0-reordered-calls');
    const gap = report.assertions.find((a) => a.contract === 'gap.vllm.v2-preforward-ordering')!;
    assert.equal(gap.outcome, 'no-longer-holds');
    assert.deepEqual(gap.parts?.map((p) => p.outcome), ['no-longer-holds', 'holds', 'holds', 'holds']);
    assert.equal(gap.parts?.[0]?.detail, 'preprocess_state: line 33, pre_forward: line 32');
    othersHold(report, ['gap.vllm.v2-preforward-ordering']);
  });

  it('method moved to a base class in another module: still present, found through the base', async function () {
    const report = await verify('vllm', 'vllm-0.31.0', 'vllm-0.31.0-moved-to-base');
    assert.equal(report.verdict, 'ok');
    const finished = target(report, 'interface.vllm.kv-connector', 'KVConnectorBase_V1.get_finished');
    assert.equal(finished.outcome, 'present');
    assert.equal(finished.inheritedFrom, 'vllm.distributed.kv_transfer.kv_connector.v1.worker_side.KVConnectorWorkerSide');
    assert.equal(finished.location?.file, 'vllm/distributed/kv_transfer/kv_connector/v1/worker_side.py');
    const results = target(report, 'interface.vllm.kv-connector', 'v1.base.KVConnectorTransferResults');
    assert.equal(results.location?.file, 'vllm/distributed/kv_transfer/kv_connector/v1/worker_side.py', 'followed the re-export in base.py');
    othersHold(report, []);
  });

  it('a method defined only under a run-time condition: its symbol and the assertions scoped to it are unresolvable', async function () {
    const source = checkout('sglang-0.5.21');
    const file = join(source, 'python/sglang/srt/disaggregation/decode.py');
    const text = readFileSync(file, 'utf8');
    // indent the method one level under `if`, up to the next top-level class
    const from = text.indexOf('    def resolve_deferred_releases');
    const to = text.indexOf('\nclass ', from);
    const method = text.slice(from, to).replace(/^(?=.)/gm, '    ');
    writeFileSync(file, `${text.slice(0, from)}    if envs.SGLANG_DISAGGREGATION_DEFERRED_DECODE_KV_RELEASE.get():\n${method}${text.slice(to)}`);
    const report = await verifyEngine({ registry: embeddedRegistry(), engine: 'sglang', source, threads: 0 });
    assert.deepEqual(report.diagnostics, []);
    const symbol = target(report, 'interface.sglang.pd-candidate', 'resolve_deferred_releases');
    assert.equal(symbol.outcome, 'unresolvable-statically');
    assert.equal(symbol.reason, 'conditional-definition');
    for (const id of ['gap.sglang.deferred-release-timeout', 'gap.sglang.pd-deferred-release']) {
      const gap = report.assertions.find((a) => a.contract === id)!;
      assert.equal(gap.outcome, 'unresolvable', id);
      assert.equal(gap.parts?.[0]?.outcome, 'unresolvable');
    }
    assert.equal(report.assertions.find((a) => a.contract === 'gap.sglang.pd-deferred-release')?.parts?.[1]?.outcome, 'holds', 'the symbol part elsewhere still holds');
    othersHold(report, ['interface.sglang.pd-candidate', 'gap.sglang.deferred-release-timeout', 'gap.sglang.pd-deferred-release']);
  });

  it('syntax errors: reported with positions; a target inside the broken class is unresolvable, the rest still checked', async function () {
    const report = await verify('vllm', 'vllm-0.31.0', 'vllm-0.31.0-syntax-error');
    const syntax = report.diagnostics.filter((d) => d.code === 'OKV6006');
    assert.deepEqual(syntax.map((d) => d.file).sort(), ['vllm/distributed/kv_transfer/kv_connector/v1/nixl/connector.py', 'vllm/v1/core/block_pool.py']);
    assert.ok(syntax.every((d) => d.severity === 'warning' && (d.range?.line ?? 0) > 1));
    const nixl = target(report, 'interface.vllm.pd-candidate', 'NixlConnector');
    assert.equal(nixl.outcome, 'unresolvable-statically');
    assert.equal(nixl.reason, 'parse-error');
    assert.equal(target(report, 'hook.vllm.native-prefix-get-cached-block').outcome, 'present', 'the method before the broken region is intact');
    assert.equal(report.verdict, 'failed');
    othersHold(report, ['interface.vllm.pd-candidate']);
  });
});
