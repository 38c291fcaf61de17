/**
 * Owned native memory (native/src/owned_memory.h, the unit pinned CUDA host memory uses):
 * releasing it while an I/O op still reads into it detaches every view at once but returns the
 * memory only after the op is reaped, on both backends. The test addon's plain allocations stand
 * in for pinned memory on a machine without a GPU; spec/gpu checks HostMemory itself.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync, writeSync } from 'node:fs';
import { openFile, openRing, type IoBackendName } from '../../native/index.js';
import { scratchDir } from './fixtures/scratch.js';
import { testAddon } from './fixtures/test-addon.js';

const turn = () => new Promise((r) => setImmediate(r));

for (const backend of ['io_uring', 'threadpool'] as IoBackendName[]) {
  describe(`native owned memory (${backend})`, function () {
    this.timeout(30_000);
    const scratch = scratchDir(`owned-${backend}`);
    after(() => scratch.remove());
    const addon = testAddon();

    it('frees at once when nothing holds the memory; a second release and a foreign buffer are refused plainly', () => {
      const before = addon.ownedLive();
      const buf = addon.ownedAlloc(8192);
      assert.equal(addon.ownedLive(), before + 1);
      assert.equal(addon.ownedRelease(buf), 'freed');
      assert.equal(buf.byteLength, 0, 'every view is detached');
      assert.equal(addon.ownedLive(), before);
      assert.equal(addon.ownedRelease(buf), 'detached');
      assert.throws(() => addon.ownedRelease(Buffer.alloc(16)), TypeError);
      assert.throws(() => addon.ownedRelease('x' as never), TypeError);
    });

    it('defers the free of memory a read is still filling until that read is reaped', async () => {
      // A FIFO keeps the read in flight until we write: the release lands mid-operation.
      const fifo = scratch.path('fifo');
      execFileSync('mkfifo', [fifo]);
      const ring = openRing({ depth: 4, backend });
      const file = openFile(fifo, { write: true, direct: false });
      const writer = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
      const before = addon.ownedLive();
      const buf = addon.ownedAlloc(4096);
      const read = ring.read(file, buf, -1, 4096);
      let unblocked = false;
      const unblock = () => {
        if (!unblocked) writeSync(writer, Buffer.alloc(4096, 7));
        unblocked = true;
      };
      try {
        await turn();
        assert.equal(ring.stats.inFlight, 1, 'the read is in flight');
        assert.equal(addon.ownedRelease(buf), 'deferred');
        assert.equal(buf.byteLength, 0, 'no view reaches the memory any more');
        assert.equal(addon.ownedLive(), before + 1, 'the memory is still allocated while the read runs');
        unblock();
        assert.ok((await read) > 0);
        for (let i = 0; i < 20 && addon.ownedLive() > before; i++) await turn();
        assert.equal(addon.ownedLive(), before, 'returned once the read was reaped');
      } finally {
        unblock();  // a failed assertion must not leave the read (and mocha) waiting
        await read.catch(() => 0);
        closeSync(writer);
        await file.close();
        await ring.close();
      }
    });
  });
}
