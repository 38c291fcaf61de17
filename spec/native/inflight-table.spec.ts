/**
 * The io_uring ring's table of ops in flight (native/src/io/inflight_table.h: open addressing,
 * backward-shift deletion, grown when half full): through the raw binding, hundreds of reads
 * parked on an empty FIFO, cancelled in a seeded random order, batch by batch. After every
 * batch each op still in flight is found (its id refused as a duplicate, its cancel accepted)
 * and each reaped id is gone (a new op may take it), across the table's growth. And the table
 * itself, driven through the test addon against a Set: ids whose probe runs wrap around the
 * end of the table, removed in random order.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync } from 'node:fs';
import { allocAligned, liveNativeOps } from '../../native/index.js';
import { binding } from '../../native/lib/binding.js';
import { seeded } from '../support/seeded.js';
import { scratchDir } from './fixtures/scratch.js';
import { testAddon } from './fixtures/test-addon.js';

const ECANCELED = 125;

describe('native io_uring ops in flight, by id', function () {
  this.timeout(30_000);
  const scratch = scratchDir('inflight');
  after(() => scratch.remove());

  it('finds every op in flight and forgets every reaped one, through growth and random removal', async () => {
    const fifo = scratch.path('parked');
    execFileSync('mkfifo', [fifo]);
    const fd = openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK);
    const ids = new Uint32Array(64);
    const results = new Float64Array(64);
    const reaped = new Map<number, number>();
    const raw = new (binding().UringRing)(512, (count) => {
      for (let i = 0; i < count; i++) reaped.set(ids[i]!, results[i]!);
    }, ids, results);
    const buffer = allocAligned(4096);
    const park = (id: number) => raw.queue(id, 0, fd, buffer, 0, 1, -1, -1);
    const { random } = seeded(11);
    try {
      // Ids with shared low bits and consecutive runs, 300 of them: the table grows twice.
      const live = new Set<number>();
      for (let k = 0; k < 150; k++) for (const id of [1 + k * 1024, 7_000_000 + k]) (park(id), live.add(id));
      raw.submit();
      assert.equal(raw.inFlight, 300);
      const waitReaped = async (want: number) => {
        const until = Date.now() + 10_000;
        while (reaped.size < want && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
        assert.equal(reaped.size, want);
      };
      let cancelled = 0;
      while (live.size > 0) {
        const batch = [...live].filter(() => random() < 0.3).slice(0, 40);
        if (batch.length === 0) batch.push([...live][0]!);
        for (const id of batch) {
          assert.equal(raw.cancel(id), true, `cancel ${id}`);
          live.delete(id);
        }
        cancelled += batch.length;
        await waitReaped(cancelled);
        for (const id of batch) assert.equal(reaped.get(id), -ECANCELED, `op ${id} cancelled`);
        assert.equal(raw.inFlight, live.size);
        for (const id of live) assert.throws(() => park(id), { code: 'EEXIST' }, `op ${id} still in flight`);
        for (const id of batch) assert.equal(raw.cancel(id), false, `op ${id} reaped`);
      }
      // A reaped id is free again: a new op under it is taken, found, and cancelled.
      park(1);
      raw.submit();
      assert.throws(() => park(1), { code: 'EEXIST' });
      assert.equal(raw.cancel(1), true);
      reaped.clear();
      await waitReaped(1);
      assert.equal(raw.inFlight, 0);
      assert.equal(liveNativeOps(), 0);
    } finally {
      raw.close();
      closeSync(fd);
    }
  });

  it('keeps ids whose probe runs wrap past the end of the table findable through random removals', () => {
    // The table's home slot of an id (Fibonacci hashing, 128 slots while under 64 entries):
    // ids homed in the last 6 slots and the first 2 make runs that cross the end.
    const home = (id: number) => Number(((BigInt(id) * 0x9e3779b97f4a7c15n) >> 32n) & 127n);
    const crowded: number[] = [];
    for (let id = 1; crowded.length < 40; id++) if (home(id) >= 122 || home(id) <= 1) crowded.push(id);
    const { random, pick } = seeded(5);
    const script: number[] = [];
    const expected: number[] = [];
    const model = new Set<number>();
    for (let step = 0; step < 4000; step++) {
      const id = pick(crowded);
      const op = model.size >= 60 ? 1 : random() < 0.45 ? 0 : random() < 0.6 ? 1 : 2;
      script.push(op, id);
      if (op === 0) expected.push(model.has(id) ? 0 : (model.add(id), 1));
      else if (op === 1) expected.push(model.delete(id) ? 1 : 0);
      else expected.push(model.has(id) ? 1 : 0);
      // After every step, every id is checked: present exactly when the model holds it.
      for (const other of crowded) script.push(2, other), expected.push(model.has(other) ? 1 : 0);
      script.push(3, 0), expected.push(model.size);
    }
    const got = testAddon().inflightTableRun(Uint32Array.from(script));
    const first = expected.findIndex((e, k) => got[k] !== e);
    assert.equal(first, -1, first < 0 ? '' : `pair ${first} (op ${script[2 * first]}, id ${script[2 * first + 1]}): got ${got[first]}, expected ${expected[first]}`);
  });
});
