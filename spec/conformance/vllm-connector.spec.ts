/**
 * The generated vLLM connector, both halves over the Python client, in the stand-in vLLM's call
 * order (scheduler step, allocation, metadata, worker load, layer waits, save, finish,
 * preemption, abort) against a real Manager process with its pages in shared memory. Each case
 * runs one scenario of spec/conformance/python/vllm_scenarios.py in a fresh interpreter and
 * checks what it observed; the Manager's own records are read where the connector's word is not
 * enough (leases released).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { PYTHON, REPO } from '../generators/support.js';
import { startManager, tempDir, type ManagerProcess } from '../runtime/support.js';
import { STANDINS, installedSite } from './support.js';

interface Observed {
  outputs: Record<string, number[]>;
  corrupt: Record<string, number[]>;
  answers: Record<string, (number | null)[]>;
  counters: Record<string, number>;
  invalid: number[][];
  freed: [string, number[]][];
  open_lookups: number;
  [more: string]: unknown;
}

/** Manager flags: 8 KiB blocks (4 layers x 2 KiB pages of the stand-in's KV), 4 MiB of DRAM. */
const MANAGER = ['--dram', '4mb', '--block-size', '8k'];

function scenario(m: ManagerProcess, socketEnv: string, site: string, name: string, ...args: string[]): Promise<Observed> {
  return scenarioWith({}, m, socketEnv, site, name, ...args);
}

function scenarioWith(extra: Record<string, string>, m: ManagerProcess, socketEnv: string, site: string, name: string, ...args: string[]): Promise<Observed> {
  const env = {
    ...extra,
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    PYTHONPATH: [join(STANDINS, 'vllm'), site, join(REPO, 'spec', 'conformance', 'python')].join(':'),
    PYTHONDONTWRITEBYTECODE: '1',
    PYTHONHASHSEED: '7',
    MANAGER_PID: String(m.child.pid),
    [socketEnv]: m.socket,
  };
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, [join(REPO, 'spec', 'conformance', 'python', 'vllm_scenarios.py'), name, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      // A scenario that paused the Manager and died must not leave it stopped for the next one.
      m.child.kill('SIGCONT');
      const line = out.trim().split('\n').pop() ?? '';
      if (code !== 0 || !line.startsWith('{')) reject(new Error(`scenario ${name} exited ${code ?? signal}\n${out}\n${err}`));
      else resolve(JSON.parse(line) as Observed);
    });
  });
}

describe('conformance: the vLLM connector over the client against a real Manager (stand-in vLLM call order)', function () {
  this.timeout(180_000);
  let m: ManagerProcess;
  let site: string;
  let socketEnv: string;
  let cold: Observed;
  const run = (name: string, ...args: string[]) => scenario(m, socketEnv, site, name, ...args);

  before(async () => {
    site = installedSite(join(REPO, 'contracts')).site;
    const { spawnSync } = await import('node:child_process');
    const probe = spawnSync(PYTHON, ['-c', 'import importlib.metadata as md, importlib\n(ep,) = [e for e in md.entry_points(group="vllm.general_plugins")]\nprint(importlib.import_module(ep.value.split(".")[0] + ".manager").SOCKET_ENV)'], {
      env: { PATH: process.env.PATH, PYTHONPATH: site },
      encoding: 'utf8',
    });
    assert.equal(probe.status, 0, probe.stderr);
    socketEnv = probe.stdout.trim();
    m = await startManager(MANAGER);
    cold = await run('cold');
  });
  after(async () => {
    if (m && m.child.exitCode === null) {
      m.child.kill('SIGCONT');
      await m.stop();
    }
  });

  it('a cold request is a miss (0, not None once answered), saves its 4 full blocks and restores none', () => {
    assert.deepEqual(cold.answers.cold!.filter((a) => a !== null), [0]);
    assert.equal(cold.counters.saved_blocks, 4);
    assert.equal(cold.counters.restored_blocks, 0);
    assert.deepEqual(cold.corrupt, {});
    assert.equal(cold.outputs.cold!.length, 3);
    // Best effort on both halves, although this engine is a KV producer (vLLM's default would say True).
    assert.deepEqual(cold.requires_kv_delivery, [false, false]);
  });

  it('the same prompt in a fresh engine process restores those blocks: equal KV bytes, equal output, nothing recomputed', async () => {
    const hot = await run('hot');
    assert.deepEqual(hot.answers.hot!.filter((a) => a !== null), [64]);
    assert.equal(hot.counters.restored_blocks, 4);
    assert.equal(hot.counters.load_errors, 0);
    assert.equal((hot.digests as Record<string, string>).hot, (cold.digests as Record<string, string>).cold);
    assert.deepEqual(hot.outputs.hot, cold.outputs.cold);
    assert.deepEqual(hot.corrupt, {});
    assert.deepEqual(hot.invalid, []);
    // From DRAM, load_mode auto loads synchronously (layer by layer, in the step that computes the rest).
    assert.deepEqual(hot.loaded_async, []);
  });

  it('a lookup the Manager has not answered is None (the request waits, is asked again), never 0; then it restores', async () => {
    const slow = await run('pending');
    assert.equal(slow.answers.slow![0], null);
    assert.deepEqual(slow.waiting_while_paused, ['slow']);
    assert.deepEqual(slow.answers.slow!.filter((a) => a !== null), [64]);
    assert.ok(!slow.answers.slow!.includes(0));
    assert.equal(slow.counters.restored_blocks, 4);
    assert.deepEqual(slow.outputs.slow, cold.outputs.cold);
  });

  it('a ready lookup vLLM never allocates is released when the request finishes unselected (the Manager records it released)', async () => {
    const starved = await run('unselected');
    assert.deepEqual(starved.running_before_abort, ['hog']);
    assert.ok(starved.answers.starved!.includes(64));
    assert.equal(starved.held_before_abort, 1);
    assert.equal(starved.open_after_abort, 0);
    // Read by the scenario while its connections were open (closing them releases leases anyway).
    const states = starved.manager_states as string[];
    assert.deepEqual(states, ['released']);
  });

  const orders = [
    ['get_transfer_results', {}],
    ['get_finished, as releases before get_transfer_results', { STANDIN_VLLM_GET_FINISHED: '1' }],
  ] as const;
  for (const [order, extra] of orders) {
    it(`an aborted request whose asynchronous restore is in flight keeps its blocks until the restore drained; later loads are clean (${order})`, async () => {
      const abort = await scenarioWith(extra, m, socketEnv, site, 'abort_mid_load');
      const resumed = abort.resumed_at_step as number;
      const reported = abort.finished_recving_at as number[];
      assert.ok(resumed >= (abort.aborted_at_step as number), JSON.stringify(abort));
      assert.equal(reported.length, 1);
      assert.ok(reported[0]! >= resumed, `finished_recving at step ${reported[0]} before the Manager resumed at step ${resumed}`);
      assert.deepEqual(abort.freed.filter(([r]) => r === 'doomed').length, 1);
      assert.deepEqual(abort.outputs.doomed, []);
      assert.deepEqual(abort.outputs.after, cold.outputs.cold);
      assert.deepEqual(abort.corrupt, {});
    });
  }

  it('a restore that does not land in time reports its blocks as load errors: vLLM recomputes them, the output is unchanged', async () => {
    const failed = await run('load_error');
    const blocks = (failed.blocks as Record<string, number[]>).unlucky!;
    assert.equal(blocks.length, 4);
    assert.deepEqual(failed.invalid, [[...blocks].sort((a, b) => a - b)]);
    assert.deepEqual(failed.corrupt, {});
    assert.deepEqual(failed.outputs.unlucky, cold.outputs.cold);
  });

  it('inside MultiConnector behind a native P/D receiver that is chosen: 0 external tokens release the lookup at once (#46865), the received blocks are saved', async () => {
    const multi = await run('multi');
    assert.deepEqual(multi.native_claimed, ['pd-1', 'pd-2']);
    assert.deepEqual(multi.manager_states_while_running, ['released']);
    assert.equal(multi.counters.restored_blocks, 0);
    assert.equal(multi.counters.saved_blocks, 8);
    assert.deepEqual(multi.outputs['pd-1'], cold.outputs.cold);
    assert.deepEqual(multi.corrupt, {});
    assert.equal(multi.multi_requires_kv_delivery, false);
    // The native receiver's KV, saved by the cache, restored in a fresh engine without it.
    const again = await run('alone', 'native', '4', '5', '3');
    assert.equal(again.counters.restored_blocks, 4);
    assert.deepEqual(again.corrupt, {});
    assert.deepEqual(again.outputs.native, multi.outputs['pd-2']);
  });

  it('after a Manager restart the blocks come from its SSD tier: load_mode auto loads them asynchronously, bytes equal', async () => {
    const dir = tempDir('vllm-ssd');
    const first = await startManager([...MANAGER, '--ssd', dir, '--ssd-size', '16mb']);
    let restarted: ManagerProcess | undefined;
    try {
      const saved = await scenario(first, socketEnv, site, 'cold');
      assert.equal(saved.counters.saved_blocks, 4);
      await first.stop();
      restarted = await startManager([...MANAGER, '--ssd', dir, '--ssd-size', '16mb']);
      const hot = await scenario(restarted, socketEnv, site, 'hot');
      assert.deepEqual(hot.loaded_async, ['hot']);
      assert.equal(hot.counters.restored_blocks, 4);
      assert.equal((hot.digests as Record<string, string>).hot, (saved.digests as Record<string, string>).cold);
      assert.deepEqual(hot.outputs.hot, saved.outputs.cold);
      assert.deepEqual(hot.corrupt, {});
    } finally {
      if (first.child.exitCode === null) await first.stop();
      if (restarted) await restarted.stop();
    }
  });

  it('a request preempted during decode resumes from its saved blocks with the output it has alone', async () => {
    const both = await run('preemption');
    // The request admitted later is the victim (the scheduler preempts the last of its running list).
    const admitted = both.admitted as string[];
    assert.deepEqual([...admitted].sort(), ['first', 'second']);
    const victim = admitted[1]!;
    assert.deepEqual(both.preempted, [victim]);
    assert.ok((both.restored_before_replay as number) >= 4, JSON.stringify(both.counters));
    assert.deepEqual(both.answers.replay!.filter((a) => a !== null), [80]);
    assert.equal(both.counters.restored_blocks! - (both.restored_before_replay as number), 5);
    assert.deepEqual(both.corrupt, {});
    const reference = await startManager(MANAGER);
    try {
      const alone = await scenario(reference, socketEnv, site, 'alone', victim, '3', '14', '24');
      assert.deepEqual(both.outputs[victim], alone.outputs[victim]);
      assert.equal(alone.counters.restored_blocks, 0);
    } finally {
      await reference.stop();
    }
  });
});
