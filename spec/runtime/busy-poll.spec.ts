/**
 * `orbitkv serve --busy-poll-us N`: after each read from a client the Manager's thread polls
 * instead of sleeping for N µs (its CPU time follows the wall clock), then sleeps again; its status
 * says how long it polled. Off by default, and a bad value is a usage error before anything starts.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO, acceptedProfile, startManager, type ManagerProcess } from './support.js';
import { ManagerClient, OPCODE } from '../../engine/runtime/index.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** CPU ms (user + system, all threads) the process has used: /proc's clock ticks, 10 ms each. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}
async function cpuOver(pid: number, ms: number): Promise<number> {
  const before = cpuMs(pid);
  await sleep(ms);
  return cpuMs(pid) - before;
}

describe('runtime: serve --busy-poll-us keeps the Manager polling after each read', function () {
  this.timeout(60_000);
  let m: ManagerProcess;
  before(async () => {
    m = await startManager(['--dram', '256k', '--block-size', '64k', '--busy-poll-us', '400000']);
  });
  after(async () => {
    if (m.child.exitCode === null) await m.stop();
  });

  it('sleeps while no client speaks, polls for the window after a read, then sleeps again; status counts it', async () => {
    const pid = m.child.pid!;
    await sleep(500); // past any window of the start
    const quiet = await cpuOver(pid, 250);
    const { runCli } = await import('../../engine/cli/main.js');
    const { captureIo } = await import('../support/io.js');
    // An operator connection's read opens a window (status itself is a read).
    const io = captureIo();
    assert.equal(await runCli(['manager', 'status', '--socket', m.socket, '--format', 'json'], io), 0, io.stderr);
    const polling = await cpuOver(pid, 250);
    await sleep(400);
    const after = await cpuOver(pid, 250);
    assert.ok(quiet < 60, `CPU while nobody spoke: ${quiet} ms in 250`);
    assert.ok(polling >= 120, `CPU in the window after a read: ${polling} ms in 250`);
    assert.ok(after < 60, `CPU once the window passed: ${after} ms in 250`);
    const again = captureIo();
    assert.equal(await runCli(['manager', 'status', '--socket', m.socket, '--format', 'json'], again), 0, again.stderr);
    const s = (JSON.parse(again.stdout) as { busyPoll: { windowUs: number; windows: number; pollingMs: number; turns: number } }).busyPoll;
    assert.equal(s.windowUs, 400_000);
    assert.ok(s.windows >= 2, `${s.windows} windows: the first status's and this one's`);
    assert.ok(s.pollingMs >= 390, `polled ${s.pollingMs} ms: one whole window at least`);
    assert.ok(s.turns > 1000, `${s.turns} loop turns`);
    const plain = captureIo();
    assert.equal(await runCli(['manager', 'status', '--socket', m.socket], plain), 0, plain.stderr);
    assert.match(plain.stdout, /busy poll: 400000 µs after each read; \d+ windows, [0-9.]+ s polling \(\d+ loop turns\)/);
    assert.match(m.stderr(), /"event":"serving".*"busyPollUs":400000/);
  });

  it('an engine client is served as without it, and its reads open windows too', async () => {
    const c = await ManagerClient.connect(m.socket);
    const pid = m.child.pid!;
    await sleep(450);
    const quiet = await cpuOver(pid, 150);
    const welcome = await c.hello(acceptedProfile(), { client: 'spec' });
    assert.equal(welcome.opcode, OPCODE.welcome, JSON.stringify(welcome.body));
    const polling = await cpuOver(pid, 200);
    assert.ok(quiet < 40 && polling >= 100, `CPU before the client spoke ${quiet} ms in 150, after its HELLO ${polling} ms in 200`);
    await c.close();
  });
});

describe('runtime: serve --busy-poll-us off and refused', function () {
  this.timeout(60_000);
  it('is off by default: status says so, and the thread sleeps right after a read', async () => {
    const m = await startManager(['--dram', '256k', '--block-size', '64k']);
    try {
      const { runCli } = await import('../../engine/cli/main.js');
      const { captureIo } = await import('../support/io.js');
      const io = captureIo();
      assert.equal(await runCli(['manager', 'status', '--socket', m.socket, '--format', 'json'], io), 0, io.stderr);
      assert.equal((JSON.parse(io.stdout) as { busyPoll: unknown }).busyPoll, null);
      const after = await cpuOver(m.child.pid!, 250);
      assert.ok(after < 60, `CPU right after a read without busy polling: ${after} ms in 250`);
      const plain = captureIo();
      assert.equal(await runCli(['manager', 'status', '--socket', m.socket], plain), 0, plain.stderr);
      assert.match(plain.stdout, /busy poll: off/);
    } finally {
      await m.stop();
    }
  });

  it('a value that is not an integer in 0..10000000 is a usage error (exit 2) naming it, before anything starts', () => {
    for (const bad of ['-5', '1.5', 'fast', '10000001']) {
      const r = spawnSync(process.execPath, ['--import', 'tsx', 'engine/cli/main.ts', 'serve', '--socket', join(tmpdir(), `okv-poll-${process.pid}`, 'm.sock'), `--busy-poll-us=${bad}`], { cwd: REPO, encoding: 'utf8', timeout: 30_000 });
      assert.equal(r.status, 2, `${bad}: ${r.stderr}`);
      assert.match(r.stderr, new RegExp(`--busy-poll-us .?${bad.replace('.', '\\.')}`));
      assert.match(r.stderr, /is not an integer in 0\.\.10000000 \(0: off\)/);
    }
  });
});
