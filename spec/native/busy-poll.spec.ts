/**
 * BusyPoll (serve --busy-poll-us): while a window is open the loop does not sleep (the thread's CPU
 * time follows the wall clock, and the loop turns), it stops once the window passes, it never
 * keeps a process or a worker from ending, and bad windows are refused.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { BusyPoll, BUSY_POLL_MAX_NS } from '../../native/index.js';
import { runFixture } from './fixtures/scratch.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** CPU ms this process used while waiting `ms` on a timer. */
async function cpuWhileWaiting(ms: number): Promise<number> {
  const before = process.cpuUsage();
  await sleep(ms);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

describe('native/busy-poll: the event loop polls for a window after each touch', () => {
  it('polls while the window is open: the thread spins through a timer wait, and the loop turns', async () => {
    const idle = await cpuWhileWaiting(100);
    const poll = new BusyPoll(150_000_000);
    try {
      poll.touch();
      const busy = await cpuWhileWaiting(100);
      const s = poll.stats();
      assert.equal(s.windows, 1);
      assert.ok(s.turns > 1000, `${s.turns} loop turns in 100 ms of polling`);
      // A sleeping loop uses next to nothing while it waits; a polling one most of the wait (2 busy cores may share it).
      assert.ok(busy > 40 && busy > 4 * idle, `CPU while polling ${busy.toFixed(1)} ms, while sleeping ${idle.toFixed(1)} ms`);
    } finally {
      poll.close();
    }
  });

  it('stops once the window passes, and each touch in a window extends it (one window, not one per touch)', async () => {
    const poll = new BusyPoll(20_000_000);
    try {
      poll.touch();
      await sleep(10);
      poll.touch();
      await sleep(100);
      const s = poll.stats();
      assert.equal(s.windows, 1, 'the second touch came within the first window');
      assert.ok(s.pollingNs >= 25e6 && s.pollingNs < 90e6, `polled ${(s.pollingNs / 1e6).toFixed(1)} ms: from the first touch to 20 ms after the second`);
      const turns = s.turns;
      const after = await cpuWhileWaiting(100);
      assert.equal(poll.stats().turns, turns, 'no turn is counted once the window is over');
      assert.ok(after < 40, `CPU after the window ${after.toFixed(1)} ms`);
      poll.touch();
      assert.equal(poll.stats().windows, 2, 'a touch after the window opens a new one');
    } finally {
      poll.close();
    }
  });

  it('close stops polling at once, is idempotent, and keeps the totals; a touch after it does nothing', async () => {
    const poll = new BusyPoll(BUSY_POLL_MAX_NS);
    poll.touch();
    await sleep(5);
    poll.close();
    poll.close();
    const s = poll.stats();
    assert.equal(s.windows, 1);
    assert.ok(s.pollingNs > 0 && s.pollingNs < 1e9);
    poll.touch();
    const after = await cpuWhileWaiting(60);
    assert.deepEqual(poll.stats(), s);
    assert.ok(after < 30, `CPU after close ${after.toFixed(1)} ms`);
  });

  it('never keeps a process alive, and a worker that polls ends cleanly', async () => {
    const started = Date.now();
    const r = await runFixture(fileURLToPath(new URL('./fixtures/busy-poll-exit.ts', import.meta.url)), []);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { worker: 'turns taken', workerExit: 0, windows: 1 });
    assert.ok(Date.now() - started < 8000, `the process took ${Date.now() - started} ms with a 10 s window open`);
  });

  it('refuses a window that is not an integer in 1..10^10 ns, before any handle is made', () => {
    for (const bad of [0, -1, 1.5, Number.NaN, Infinity, BUSY_POLL_MAX_NS + 1]) assert.throws(() => new BusyPoll(bad), RangeError);
    assert.throws(() => new BusyPoll('5' as unknown as number), RangeError);
  });
});
