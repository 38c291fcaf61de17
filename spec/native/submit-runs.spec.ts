/**
 * How queueMany hands its rows to the kernel: two SQEs per submitting entry, never a whole pump
 * in one. The kernel plugs the block queue for an entry of more than two (io_submit_state_start)
 * and the plugged reads reach the disk as one dispatch; the dev VM's virtio disk serves such
 * bursts slower per request than fio's one-at-a-time stream (native/src/io/uring_ring.h,
 * kUnpluggedRun). Through the raw binding, reads parked on an empty FIFO (they never complete,
 * so no reaping entry is counted): the ring's count of submitting entries over one queueMany.
 * io_uring only: the thread-pool backend has no kernel entries.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync } from 'node:fs';
import { allocAligned } from '../../native/index.js';
import { binding, type RawIoBackend } from '../../native/lib/binding.js';
import { scratchDir } from './fixtures/scratch.js';

const ECANCELED = 125;
const QUEUE_ROW = 7;

describe('native io_uring submissions per kernel entry', function () {
  this.timeout(30_000);
  const scratch = scratchDir('submit-runs');
  after(() => scratch.remove());

  let fd = -1;
  let raw: RawIoBackend;
  const reaped = new Map<number, number>();
  const ids = new Uint32Array(64);
  const results = new Float64Array(64);
  const buffers = Array.from({ length: 64 }, () => allocAligned(4096));
  const table = new Float64Array(64 * QUEUE_ROW);
  let nextId = 1;

  beforeEach(() => {
    const fifo = scratch.path(`parked-${nextId}`);
    execFileSync('mkfifo', [fifo]);
    fd = openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK);
    reaped.clear();
    raw = new (binding().UringRing)(64, (count) => {
      for (let i = 0; i < count; i++) reaped.set(ids[i]!, results[i]!);
    }, ids, results);
  });

  afterEach(async () => {
    for (const id of [...Array(nextId).keys()]) raw.cancel(id);
    const until = Date.now() + 10_000;
    while (raw.inFlight > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
    for (const result of reaped.values()) assert.equal(result, -ECANCELED);
    raw.close();
    closeSync(fd);
  });

  /** Rows [0, count) of the table: one-byte reads of the FIFO at the current position. */
  function rows(count: number): number[] {
    const taken: number[] = [];
    for (let row = 0; row < count; row++) {
      const id = nextId++;
      table.set([id, 0, fd, 0, 1, -1, -1], row * QUEUE_ROW);
      taken.push(id);
    }
    return taken;
  }

  for (const [count, entries] of [[16, 8], [5, 3], [2, 1], [1, 1]] as const) {
    it(`submits ${count} rows in ${entries} kernel entr${entries === 1 ? 'y' : 'ies'}, two at a time`, () => {
      rows(count);
      const before = raw.kernelSubmits!;
      assert.equal(raw.queueMany(0, count, table, false, ...buffers), 0);
      assert.equal(raw.kernelSubmits! - before, entries);
      assert.equal(raw.inFlight, count);
    });
  }

  it('submits the rows before a refused one in pairs too, and reports the refused row', () => {
    rows(7);
    table[6 * QUEUE_ROW + 1] = 99; // row 6: an unknown op kind
    const before = raw.kernelSubmits!;
    assert.throws(() => raw.queueMany(0, 7, table, false, ...buffers), (e: unknown) => e instanceof RangeError && (e as { index?: number }).index === 6);
    // Rows 0-5 in entries after rows 1, 3 and 5; nothing is left for the refusal's submit.
    assert.equal(raw.kernelSubmits! - before, 3);
    assert.equal(raw.inFlight, 6);
  });
});
