/**
 * The generated SGLang package over a real Manager: two TP ranks of the stand-in server run the
 * engine's order (admission with the linker's lookup, load before the forward with per-layer
 * waits, write-through offload, abort) with pages in shared memory. The order is SGLang's (see
 * the stand-in's docstrings); every expectation is what the engine or the Manager would see.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { productOf } from '../../engine/registry/index.js';
import { REPO, registryAt, registryWithAbortHook } from '../generators/support.js';
import { ManagerClient, OPCODE } from '../../engine/runtime/index.js';
import { startManager, type ManagerProcess } from '../runtime/support.js';
import { entries, runRanks, tokens, type RankResult, type Scenario } from './sglang-ranks.js';
import { installedSite } from './support.js';

const GEOMETRY = { pages: 64, page_size: 4, layers: 3, page_bytes: 4096 };
const BLOCK = `${GEOMETRY.layers * GEOMETRY.page_bytes}`;

describe('conformance: the SGLang linker and hooks over a real Manager (two ranks, shared-memory pages)', function () {
  this.timeout(240_000);
  const registry = registryAt(join(REPO, 'contracts'));
  const product = productOf(registry);
  const backend = product.packagePrefix;
  const serverArgs = { radix_cache_backend: backend, enable_unified_cache_external_linker: true, model_path: 'standin/model' };
  let site: string;
  let manager: ManagerProcess;

  const run = (phases: Scenario['phases'], extra: Partial<Scenario> = {}, perRank: Partial<Scenario>[] = [], env: Record<string, string> = {}): Promise<RankResult[]> =>
    runRanks(site, product.envPrefix, manager.socket, { server_args: serverArgs, geometry: GEOMETRY, phases, ...extra }, 2, perRank, env);
  const ok = (results: RankResult[]) => {
    for (const r of results) assert.equal(r.status, 0, `rank ${r.rank} exited ${r.status}\n${r.stderr}`);
  };
  const admitted = (r: RankResult, rid: string) => entries(r, 'admitted', rid) as [string, string, number, number, number][];
  const wrongLayers = (r: RankResult, rid: string) => (entries(r, 'forward', rid) as [string, string, number, number[]][]).flatMap((e) => e[3]);

  before(async () => {
    site = installedSite(join(REPO, 'contracts')).site;
    manager = await startManager(['--dram', '16mb', '--block-size', BLOCK]);
  });
  after(async () => {
    await manager?.stop();
  });

  const A = tokens(1000, 4);
  let cold: RankResult[];

  it('cold admission: a miss on every rank, admitted as recompute, then every page written through and stored', async () => {
    cold = await run([{ submit: [['a', A]] }, { run: { max_rounds: 100 } }]);
    ok(cold);
    for (const r of cold) {
      const [first] = admitted(r, 'a');
      assert.ok(first, `rank ${r.rank} never admitted a\n${r.stderr}`);
      assert.deepEqual(first.slice(3), [0, 0], 'nothing stored yet: no device and no host hit');
      assert.deepEqual(wrongLayers(r, 'a'), []);
      assert.deepEqual(r.events.filter((e) => e[0] === 'offloaded'), [['offloaded', true]], 'the written-through node is stored');
      assert.equal(r.pages.a?.length, 4);
    }
  });

  it('hot admission (a restarted engine): every rank restores the four pages, bytes equal to those saved, each layer read only once landed', async () => {
    const hot = await run([{ submit: [['a', A]] }, { run: { max_rounds: 100 } }]);
    ok(hot);
    for (const r of hot) {
      const [first] = admitted(r, 'a');
      assert.deepEqual(first?.slice(3), [0, 4], `rank ${r.rank}: the whole prefix comes from the Manager\n${r.stderr}`);
      assert.deepEqual(wrongLayers(r, 'a'), [], 'the forward read every restored layer after it landed');
      assert.deepEqual(r.pages.a, cold[r.rank]!.pages.a, `rank ${r.rank}: restored bytes equal saved bytes`);
      assert.deepEqual(r.events.filter((e) => e[0] === 'drained'), [['drained', 'a']]);
    }
  });

  it('pending is deferred on every rank (never admitted as a miss), then admitted with the full boundary once the Manager answers', async () => {
    // Rank 1 reaches its first round late: rank 0's lookup is pending until rank 1's arrives.
    const results = await run([{ submit: [['a', A]] }, { run: { max_rounds: 100 } }], {}, [{}, { delay_first_round_s: 0.3 }]);
    ok(results);
    const decisions = results.map((r) => r.log.filter((e) => e[1] === 'a' && (e[0] === 'admitted' || e[0] === 'not-admitted')));
    assert.deepEqual(decisions[0], decisions[1], 'both ranks made the same decision in every round');
    const first = decisions[0]![0]!;
    assert.deepEqual(first.slice(0, 2), ['not-admitted', 'a'], 'the first round defers');
    assert.equal(first[3], 'CONTINUE', 'a deferral lets the next waiting request be tried');
    const admittedEntries = decisions[0]!.filter((e) => e[0] === 'admitted');
    assert.equal(admittedEntries.length, 1);
    assert.deepEqual(admittedEntries[0]!.slice(3), [0, 4], 'admitted with every stored page, not as a miss');
    for (const r of results) assert.deepEqual(wrongLayers(r, 'a'), []);
  });

  it('ranks agree: rank 0 holds four pages of a prompt, rank 1 two; both restore the two every rank holds, then compute the rest', async () => {
    // Seeding only: each rank writes a different prompt through (the same page count, so the
    // collectives still line up); the two prompts share their first two pages.
    const X = tokens(5000, 4);
    const Y = [...X.slice(0, 8), ...tokens(9000, 2)];
    const seeded = await run([], {}, [{ phases: [{ submit: [['s', X]] }, { run: {} }] }, { phases: [{ submit: [['s', Y]] }, { run: {} }] }]);
    ok(seeded);
    const results = await run([{ submit: [['x', X]] }, { run: { max_rounds: 100 } }]);
    ok(results);
    for (const r of results) {
      assert.deepEqual(admitted(r, 'x')[0]?.slice(3), [0, 2], `rank ${r.rank}: the agreed boundary, not its own match\n${r.stderr}`);
      assert.deepEqual(wrongLayers(r, 'x'), []);
      assert.deepEqual(r.pages.x?.slice(0, 2), seeded[r.rank]!.pages.s?.slice(0, 2), 'the restored pages are the ones that rank saved');
    }
  });

  it('ranks whose answers arrive at different times still decide together: all defer until every rank has its answer', async () => {
    // Each rank's ticket waits for a sibling rank that never asks (another request id), so each
    // times out at its own deadline, rank 1's half a second after rank 0's. A rank deciding on
    // its own answer alone would admit while the other defers.
    const deadline = { [`${product.envPrefix}_LOOKUP_DEADLINE_MS`]: '300' };
    const phase = (rid: string, from: number) => ({ phases: [{ submit: [[rid, tokens(from, 4)]] }, { run: { max_rounds: 2000 } }] });
    const results = await run([], {}, [phase('t0', 7000), { ...phase('t1', 8000), delay_first_round_s: 0.5 }], deadline);
    ok(results);
    const decisions = results.map((r) => r.log.filter((e) => e[0] === 'admitted' || e[0] === 'not-admitted').map((e) => [e[0], e[2]]));
    assert.deepEqual(decisions[0], decisions[1], 'every round, both ranks made the same decision');
    assert.ok(decisions[0]!.length > 2, 'the ranks deferred while an answer was missing');
    assert.deepEqual(admitted(results[0]!, 't0')[0]?.slice(3), [0, 0], 'a timed-out lookup is admitted as recompute');
  });

  it('opt-in warm-up: the lookup starts when the request is queued, so a stored prompt is admitted in its first round', async () => {
    const warmHook = registry.ofKind('hook').find((h) => h.engine === 'sglang' && h.target.endsWith('.Scheduler._add_request_to_queue') && h.activation.mode === 'opt-in');
    assert.ok(warmHook && warmHook.activation.mode === 'opt-in');
    const { env, value } = warmHook.activation.switches[0]!;
    const late = { delay_first_round_s: 0.3 };
    const firstDecision = (results: RankResult[]) => results.map((r) => r.log.find((e) => e[1] === 'a' && (e[0] === 'admitted' || e[0] === 'not-admitted'))!.slice(0, 3));
    const unwarmed = await run([{ submit: [['a', A]] }, { run: { max_rounds: 100 } }], late);
    ok(unwarmed);
    assert.deepEqual(firstDecision(unwarmed), [['not-admitted', 'a', 1], ['not-admitted', 'a', 1]], 'without it, the first round waits for the lookup it opened');
    const warm = await run([{ submit: [['a', A]] }, { run: { max_rounds: 100 } }], late, [], { [env]: value });
    ok(warm);
    assert.deepEqual(firstDecision(warm), [['admitted', 'a', 1], ['admitted', 'a', 1]]);
    for (const r of warm) {
      assert.deepEqual(admitted(r, 'a')[0]?.slice(3), [0, 4]);
      assert.deepEqual(r.pages.a, unwarmed[r.rank]!.pages.a);
    }
  });

  it('abort during load: the restore drains before the tree frees its pages', async () => {
    const results = await run([{ submit: [['a', A]] }, { abort_during_load: 'a' }, { run: { max_rounds: 100 } }]);
    ok(results);
    for (const r of results) {
      const drained = r.events.findIndex((e) => e[0] === 'drained' && e[1] === 'a');
      const freed = r.events.findIndex((e) => e[0] === 'freed' && e[1] === 'aborted a');
      assert.ok(drained >= 0 && freed >= 0, `rank ${r.rank}: ${JSON.stringify(r.events)}`);
      assert.ok(drained < freed, `rank ${r.rank}: pages freed before the restore drained: ${JSON.stringify(r.events)}`);
      assert.deepEqual(entries(r, 'forward', 'a'), [], 'the aborted request never ran');
    }
  });

  it('an admission that loads nothing gives the lookup back: no lease is held until it expires', async () => {
    // A Manager whose leases expire after 800 ms, and an engine too small for the prompt: every
    // round (at least 2 ms each, 600 of them) the lookup is ready, admission refuses for want of
    // pages (NO_TOKEN) and no load takes it.
    const short = await startManager(['--dram', '16mb', '--block-size', BLOCK, '--lease-ms', '800']);
    try {
      const B = tokens(3000, 4);
      const seeded = await runRanks(site, product.envPrefix, short.socket, { server_args: serverArgs, geometry: GEOMETRY, phases: [{ submit: [['b', B]] }, { run: {} }] });
      ok(seeded);
      const small = await runRanks(site, product.envPrefix, short.socket, { server_args: serverArgs, geometry: { ...GEOMETRY, pages: 3 }, phases: [{ submit: [['b', B]] }, { run: { max_rounds: 600 } }] });
      ok(small);
      for (const r of small) assert.ok(entries(r, 'not-admitted', 'b').some((e) => e[3] === 'NO_TOKEN'), `rank ${r.rank} was never refused for pages`);
      const op = await ManagerClient.connect(short.socket);
      await op.request(OPCODE.operator, {});
      const records = ((await op.request(OPCODE.requests, { request: 'b' })).body as { records: { state: string; boundary: number | null }[] }).records;
      op.socket.destroy();
      const states = records.map((x) => x.state);
      assert.ok(states.includes('released'), JSON.stringify(states));
      assert.ok(!states.includes('expired'), `a ready lookup was held until its lease expired: ${JSON.stringify(states)}`);
    } finally {
      await short.stop();
    }
  });

  it('capture before the completion counter is installed: the linker refuses before any lookup, naming the graph-capture hook', async () => {
    const results = await run([{ submit: [['a', A]] }, { run: { max_rounds: 10 } }], { capture_before_plugins: true });
    for (const r of results) {
      assert.equal(r.status, 3, r.stderr);
      assert.match(r.stderr, /capture-before-install/);
      assert.match(r.stderr, /init_cuda_graphs/);
    }
  });
});

describe('conformance: the scheduler abort hook (AROUND Scheduler._release_aborted_request) over a real Manager', function () {
  this.timeout(240_000);
  let site: string;
  let manager: ManagerProcess;
  const registry = registryAt(join(REPO, 'contracts'));
  const product = productOf(registry);
  const serverArgs = { radix_cache_backend: product.packagePrefix, enable_unified_cache_external_linker: true, model_path: 'standin/model' };

  before(async () => {
    // The embedded registry with the retired abort hook kept: the template gives it the drain role.
    site = installedSite(registryWithAbortHook()).site;
    manager = await startManager(['--dram', '16mb', '--block-size', BLOCK]);
  });
  after(async () => {
    await manager?.stop();
  });

  it('abort during a load: the hook drains the started restore before the original releases, with no error in the scheduler', async () => {
    const A = tokens(5000, 4);
    const phases = (extra: Record<string, unknown>[]) => runRanks(site, product.envPrefix, manager.socket, { server_args: serverArgs, geometry: GEOMETRY, phases: [{ submit: [['a', A]] }, ...extra, { run: { max_rounds: 100 } }] });
    for (const r of await phases([])) assert.equal(r.status, 0, r.stderr);
    const results = await phases([{ abort_during_load: 'a' }]);
    for (const r of results) {
      assert.equal(r.status, 0, `rank ${r.rank} exited ${r.status}\n${r.stderr}`);
      assert.doesNotMatch(r.stderr, /AttributeError|Traceback/);
      const release = entries(r, 'release-aborted', 'a');
      assert.equal(release.length, 1, JSON.stringify(r.log));
      assert.ok((release[0]![2] as number) >= 1, `rank ${r.rank}: the original released before the restore drained: ${JSON.stringify(r.log)}`);
      const drained = r.events.findIndex((e) => e[0] === 'drained' && e[1] === 'a');
      const freed = r.events.findIndex((e) => e[0] === 'freed' && e[1] === 'aborted a');
      assert.ok(drained >= 0 && freed >= 0 && drained < freed, JSON.stringify(r.events));
      assert.deepEqual(entries(r, 'forward', 'a'), [], 'the aborted request never ran');
    }
  });
});
