import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EvidenceDraft } from '../../engine/model/index.js';
import { embeddedRegistryDir, loadRegistry } from '../../engine/registry/index.js';
import { buildBoard, ledgerFiles, readLedgerFile } from '../../engine/lifecycle/index.js';
import { LIFECYCLE_FIXTURES, cli, sealAll } from './support.js';

const ROOT = embeddedRegistryDir();
const { registry } = loadRegistry(ROOT);
const files = ledgerFiles(ROOT);

describe('the embedded registry\'s ledger (the seed\'s history)', () => {
  it('is exactly the transcription of the seed\'s 2026-10-06 and 2026-10-08 rechecks', () => {
    const drafts = JSON.parse(readFileSync(join(LIFECYCLE_FIXTURES, 'seed-evidence.json'), 'utf8')) as EvidenceDraft[];
    assert.equal(readFileSync(files.ledger, 'utf8'), sealAll(drafts).text);
  });

  it('verifies: canonical lines, intact chain, head anchor at the last record', () => {
    const read = readLedgerFile(files, { canonical: true });
    assert.deepEqual(read.diagnostics, []);
    assert.equal(read.records.length, 28);
  });

  const board = () => buildBoard(registry, readLedgerFile(files).records, { at: '2026-11-29T12:00:00Z' });
  const row = (id: string) => board().rows.find((r) => r.id === id)!;

  it('every kept hook reads blocked, with the reason the seed gives', () => {
    const kept = registry.ofKind('hook').filter((h) => h.disposition.state === 'kept');
    assert.equal(kept.length, 4);
    for (const hook of kept) {
      const r = row(hook.id);
      assert.equal(r.state, 'kept', hook.id);
      assert.ok(r.blockers.some((b) => b.includes('not released on the pinned sglang line 0.5')), `${hook.id}: ${r.blockers.join('; ')}`);
      assert.equal(r.reason, hook.disposition.state === 'kept' ? hook.disposition.reason : undefined);
    }
    assert.ok(row('hook.sglang.init-cuda-graphs').blockers.some((b) => b.startsWith('upstream.sglang.40595: ') && b.includes('is open')));
  });

  it('removed hooks stay removed; nothing was refused, and no pin or disposition drifted', () => {
    for (const hook of registry.ofKind('hook').filter((h) => h.disposition.state === 'removed')) assert.equal(row(hook.id).state, 'removed');
    assert.deepEqual(board().diagnostics.filter((d) => d.code !== 'OKV4207'), []);
  });

  it('names each place the YAML claims what the ledger does not record (OKV4207), at the field', () => {
    const drift = board().diagnostics.filter((d) => d.code === 'OKV4207').map((d) => `${d.contract} ${d.file}:${d.range?.line}`);
    assert.deepEqual(drift, [
      'upstream.sglang.40759 upstreams/upstream.sglang.40759.yaml:11',
      'upstream.sglang.40759 upstreams/upstream.sglang.40759.yaml:13',
      'upstream.vllm.42676 upstreams/upstream.vllm.42676.yaml:11',
      'upstream.vllm.42676 upstreams/upstream.vllm.42676.yaml:14',
      'upstream.vllm.46865 upstreams/upstream.vllm.46865.yaml:15',
    ]);
  });

  it('V2/recurrent/multi-group profiles are still rejected, blocked by the open vLLM #59410', () => {
    for (const id of ['rejection.vllm.v2-model-runner', 'rejection.vllm.recurrent', 'rejection.vllm.multi-group']) {
      const r = row(id);
      assert.equal(r.state, 'rejected', id);
      assert.ok(r.blockers.some((b) => b.startsWith('upstream.vllm.59410: ') && b.includes('is open')), id);
    }
    assert.equal(row('gap.vllm.v2-preforward-ordering').state, 'restricted');
  });

  it('independent acceptance is open; the 2026-10-06 passes are recorded but, with hashes kept outside the ledger, pass no gate; the compiler-cache failure is recorded', () => {
    assert.equal(row('gate.independent-acceptance').state, 'pending');
    for (const id of ['gate.installed.a100-dram-io-uring', 'gate.vllm.callback-recovery-tests', 'gate.sglang.callback-recovery-tests', 'gate.vllm.model-gate', 'gate.sglang.gpu-restart']) {
      assert.equal(row(id).state, 'pending', id);
      assert.ok(row(id).blockers.every((b) => b.includes('hashes kept outside the ledger')), id);
    }
    assert.equal(row('gate.installed.compiler-cache').state, 'failed');
  });

  it('the 2026-10-08 recheck shows the three PRs open; #46865 released; by 2026-11-29 the recheck is stale', () => {
    for (const id of ['upstream.vllm.59410', 'upstream.sglang.40595', 'upstream.sglang.40896']) assert.equal(row(id).state, 'open', id);
    assert.equal(row('upstream.vllm.46865').state, 'released');
    const stale = row('hook.sglang.init-cuda-graphs').stale!;
    assert.deepEqual(stale, { last: '2026-10-08T12:07:00Z', days: 52, maxAgeDays: 30 });
    assert.equal(buildBoard(registry, readLedgerFile(files).records, { at: '2026-10-20T00:00:00Z' }).rows.find((r) => r.id === 'hook.sglang.init-cuda-graphs')!.stale, undefined);
  });

  it('status --at before the 2026-10-08 recheck shows the PRs unverified', async () => {
    const r = await cli(ROOT, 'status', '--format', 'json', '--at', '2026-10-07');
    const rows = (JSON.parse(r.out) as { rows: { id: string; state: string }[] }).rows;
    assert.equal(rows.find((x) => x.id === 'upstream.vllm.59410')!.state, 'unverified');
    assert.equal(rows.find((x) => x.id === 'gate.vllm.model-gate')!.state, 'pending');
  });

  it('status filters rows by kind, state and staleness, and refuses an unknown kind', async () => {
    const rowsOf = async (...args: string[]) => {
      const r = await cli(ROOT, 'status', '--format', 'json', '--at', '2026-11-29T12:00:00Z', ...args);
      assert.equal(r.code, 0, r.err);
      return (JSON.parse(r.out) as { rows: { id: string; kind: string; state: string; stale?: object }[] }).rows;
    };
    const all = await rowsOf();
    const keptHooks = await rowsOf('--kind', 'hook', '--state', 'kept');
    assert.deepEqual(keptHooks.map((r) => r.id), all.filter((r) => r.kind === 'hook' && r.state === 'kept').map((r) => r.id));
    assert.ok(keptHooks.length >= 4);
    const stale = await rowsOf('--stale', '--kind', 'upstream,engine');
    assert.ok(stale.length > 0 && stale.every((r) => r.stale !== undefined && (r.kind === 'upstream' || r.kind === 'engine')));
    const bad = await cli(ROOT, 'status', '--kind', 'hooks', '--at', '2026-11-29');
    assert.equal(bad.code, 2);
    assert.match(bad.err, /unknown kind 'hooks'/);
  });

  it('the committed REGISTRY.md is up to date', async () => {
    const r = await cli(ROOT, 'report', '--check');
    assert.equal(r.code, 0, r.err);
  });

  it('no lifecycle code names a contract of the registry (the registry is data)', () => {
    const dir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'engine', 'lifecycle');
    const sources: string[] = [];
    const walk = (d: string) => {
      for (const e of readdirSync(d, { withFileTypes: true })) e.isDirectory() ? walk(join(d, e.name)) : sources.push(readFileSync(join(d, e.name), 'utf8'));
    };
    walk(dir);
    const text = sources.join('\n');
    for (const c of registry.contracts) assert.ok(!text.includes(c.id), `engine/lifecycle mentions ${c.id}`);
    for (const e of registry.ofKind('engine')) assert.ok(!new RegExp(`['"]${e.name}['"]`).test(text), `engine/lifecycle names engine ${e.name}`);
  });
});
