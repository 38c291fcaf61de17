/**
 * IoRing scheduling on both backends: writes keep a bounded share of the depth while reads
 * stream, deadlines and cancellation by id end ops definitely, and fsync waits only for the
 * writes of its own file.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync, readSync } from 'node:fs';
import { CancelledError, DeadlineExceededError, allocAligned, openFile, openRing, type IoBackendName } from '../../native/index.js';
import { scratchDir } from './fixtures/scratch.js';

const BLOCK = 4096;
const tick = () => new Promise((r) => setTimeout(r, 10));

for (const backend of ['io_uring', 'threadpool'] as IoBackendName[]) {
  describe(`native IoRing scheduling (${backend})`, function () {
    this.timeout(30_000);
    const scratch = scratchDir(`sched-${backend}`);
    after(() => scratch.remove());

    it('keeps a share of the depth for writes while reads wait', async () => {
      const ring = openRing({ depth: 8, backend, writeShare: 0.25 });
      const data = openFile(scratch.path('reads.bin'), { create: true });
      const save = openFile(scratch.path('save.bin'), { create: true });
      await ring.write(data, allocAligned(64 * BLOCK), 0);
      // The writes overwrite blocks already allocated (a first write to a hole can wait on the
      // file system's allocation, far longer than a read): what is measured is when they are
      // submitted, not how long ext4 takes to extend a file.
      await ring.write(save, allocAligned(4 * BLOCK), 0);
      await ring.fsync(save);
      const order: string[] = [];
      const reads = Array.from({ length: 400 }, (_, i) => ring.read(data, allocAligned(BLOCK), (i % 64) * BLOCK).then(() => void order.push('r')));
      const writes = Array.from({ length: 4 }, (_, i) => ring.write(save, allocAligned(BLOCK).fill(i), i * BLOCK).then(() => void order.push('w')));
      assert.equal(ring.writeReserve, 2);
      await Promise.all([...reads, ...writes]);
      // Two slots wait for the writes from the first submit on: all four finish early. With reads
      // always first they would wait for every read to be submitted, and finish among the last
      // eight (396 or later); half-way leaves room for a loaded machine's reordering.
      const lastWrite = order.lastIndexOf('w');
      assert.ok(lastWrite < order.length / 2, `the last write finished as completion ${lastWrite} of ${order.length}`);
      await ring.close();
      await Promise.all([data.close(), save.close()]);
    });

    it('cancels an op whose deadline passes (DeadlineExceededError, ETIMEDOUT) and one cancelled by id', async () => {
      const fifo = scratch.path('deadline.fifo');
      execFileSync('mkfifo', [fifo]);
      const pipe = openFile(fifo, { write: true, direct: false });
      const file = openFile(scratch.path('deadline.bin'), { create: true });
      const ring = openRing({ depth: 1, backend });
      const blocker = ring.read(pipe, Buffer.alloc(4), -1); // holds the only slot until bytes arrive
      const late = ring.read(file, allocAligned(BLOCK), 0, BLOCK, 0, { deadlineMs: 50 });
      const byId = ring.read(file, allocAligned(BLOCK), 0);
      const t0 = performance.now();
      assert.equal(await ring.cancel(byId.id), 'cancelled');
      await assert.rejects(byId, CancelledError);
      assert.equal(ring.cancel(byId.id), null, 'a settled id is no longer known');
      await assert.rejects(late, (e: unknown) => e instanceof DeadlineExceededError && e.code === 'ETIMEDOUT' && e.deadlineMs === 50);
      const waited = performance.now() - t0;
      assert.ok(waited >= 45 && waited < 2000, `deadline fired after ${waited} ms`);
      // In flight (in the kernel, or waiting on a pool thread): the deadline cancels it there too.
      const wide = openRing({ depth: 2, backend });
      const stuck = wide.read(pipe, Buffer.alloc(4), -1, 4, 0, { deadlineMs: 40 });
      await assert.rejects(stuck, DeadlineExceededError);
      await wide.close();
      execFileSync('bash', ['-c', `printf abcd > '${fifo}'`]);
      assert.equal(await blocker, 4);
      await ring.close();
      await Promise.all([pipe.close(), file.close()]);
    });

    it('holds an fsync only behind writes to its own file', async () => {
      const fifo = scratch.path('full.fifo');
      execFileSync('mkfifo', [fifo]);
      const pipe = openFile(fifo, { write: true, direct: false }); // O_RDWR: opening does not block
      const other = openFile(scratch.path('other.bin'), { create: true });
      const ring = openRing({ depth: 8, backend });
      // More than a pipe holds: this write stays in flight until someone reads.
      const stuck = ring.write(pipe, Buffer.alloc(1 << 20, 1), -1);
      await tick();
      const pipeSync = ring.fsync(pipe);
      let pipeSynced = false;
      void pipeSync.then(() => (pipeSynced = true), () => (pipeSynced = true));
      assert.equal(await ring.fsync(other), 0, 'the other file\'s fsync did not wait for the pipe\'s write');
      assert.equal(pipeSynced, false);
      assert.equal(ring.stats.queued, 1, 'the pipe\'s fsync waits behind its write');
      const drain = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
      const sink = Buffer.alloc(1 << 16);
      let got = 0;
      while (got < 1 << 20) {
        try {
          got += readSync(drain, sink);
        } catch {
          await tick();
        }
      }
      assert.equal(await stuck, 1 << 20);
      await pipeSync.catch(() => undefined); // a FIFO may refuse fsync (EINVAL): it ran after the write either way
      assert.equal(pipeSynced, true);
      closeSync(drain);
      await ring.close();
      await Promise.all([pipe.close(), other.close()]);
    });
  });
}
