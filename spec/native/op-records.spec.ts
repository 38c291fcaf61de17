/**
 * Reused op records, on both backends: the native side keeps released IoOp records in a pool
 * (native/src/io/io_op.h) and IoRing reuses settled submitRead records (native/lib/io-op.ts), so
 * a steady stream of reads allocates nothing. A reused record must carry nothing of its last op:
 * no segment, no buffer held, no id, and never a record something still refers to.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync, writeFileSync, writeSync } from 'node:fs';
import { CancelledError, allocAligned, liveNativeOps, openFile, openRing, type IoBackendName } from '../../native/index.js';
import { scratchDir } from './fixtures/scratch.js';
import { testAddon } from './fixtures/test-addon.js';

const BLOCK = 4096;

for (const backend of ['io_uring', 'threadpool'] as IoBackendName[]) {
  describe(`native op records (${backend})`, function () {
    this.timeout(30_000);
    const scratch = scratchDir(`records-${backend}`);
    after(() => scratch.remove());
    const content = randomBytes(64 * BLOCK);
    const slice = (offset: number, length: number) => content.subarray(offset, offset + length);

    it('a reused native record keeps no segment of its last op: every byte lands in its own buffer', async () => {
      const path = scratch.path('data.bin');
      writeFileSync(path, content);
      const ring = openRing({ depth: 8, backend });
      const file = openFile(path);
      try {
        // Vectored reads of three segments, single reads of other sizes, and reads that end
        // early at the end of the file (segments left over), many times over: records move
        // between the shapes through the pool.
        const kept: Array<{ buffer: Uint8Array; expect: Uint8Array }> = [];
        for (let round = 0; round < 40; round++) {
          const at = (round * 5) % 60;
          const segments = [allocAligned(BLOCK), allocAligned(BLOCK), allocAligned(BLOCK)];
          const single = allocAligned(2 * BLOCK);
          const small = allocAligned(BLOCK);
          const tail = [allocAligned(BLOCK), allocAligned(BLOCK), allocAligned(BLOCK)];
          const past = allocAligned(BLOCK);
          const [vec, one, two, short, none] = await Promise.all([
            ring.readv(file, segments, at * BLOCK),
            ring.read(file, single, (at + 1) * BLOCK),
            ring.read(file, small, (at + 3) * BLOCK),
            ring.readv(file, tail, 63 * BLOCK),
            ring.read(file, past, 64 * BLOCK),
          ]);
          assert.equal(short, BLOCK, `round ${round}: a readv over the last block ends after it`);
          assert.equal(none, 0, `round ${round}: a read at the end of the file moves nothing`);
          // (What O_DIRECT leaves in segments past the end of the file is the kernel's business.)
          kept.push({ buffer: tail[0]!, expect: slice(63 * BLOCK, BLOCK) });
          assert.equal(vec, 3 * BLOCK, `round ${round}: readv moves its three segments`);
          assert.equal(one, 2 * BLOCK, `round ${round}: an 8 KiB read moves 8 KiB`);
          assert.equal(two, BLOCK, `round ${round}: a 4 KiB read moves 4 KiB`);
          segments.forEach((s, i) => kept.push({ buffer: s, expect: slice((at + i) * BLOCK, BLOCK) }));
          kept.push({ buffer: single, expect: slice((at + 1) * BLOCK, 2 * BLOCK) }, { buffer: small, expect: slice((at + 3) * BLOCK, BLOCK) });
        }
        // Checked at the end: a later op writing through a stale segment would show here.
        kept.forEach(({ buffer, expect }, i) => assert.ok(Buffer.from(buffer).equals(expect), `buffer ${i} holds its own bytes only`));
        assert.equal(liveNativeOps(), 0, 'every record went back');
      } finally {
        await ring.close();
        await file.close();
      }
    });

    it('a reaped op holds no buffer memory: the record goes back to the pool without its buffer', async () => {
      const path = scratch.path('data.bin');
      writeFileSync(path, content);
      const addon = testAddon();
      const ring = openRing({ depth: 4, backend });
      const file = openFile(path);
      try {
        const before = addon.ownedLive();
        const buf = addon.ownedAlloc(BLOCK);
        assert.equal(await ring.read(file, buf, 2 * BLOCK), BLOCK);
        assert.ok(buf.equals(slice(2 * BLOCK, BLOCK)));
        assert.equal(addon.ownedRelease(buf), 'freed', 'nothing holds the memory once the read is reaped');
        assert.equal(addon.ownedLive(), before);
      } finally {
        await ring.close();
        await file.close();
      }
    });

    it('reuses a submitRead record only once nothing refers to it: cancelled-while-queued reads stay out, old ids stay gone', async () => {
      const path = scratch.path('data.bin');
      writeFileSync(path, content);
      const ring = openRing({ depth: 2, backend });
      const file = openFile(path);
      try {
        for (let round = 0; round < 3; round++) {
          const calls = new Array<number>(32).fill(0);
          const outcomes: Array<Error | number> = [];
          const buffers = Array.from({ length: 32 }, () => allocAligned(BLOCK));
          const ids: number[] = [];
          await new Promise<void>((resolve) => {
            let left = 32;
            buffers.forEach((b, i) => {
              ids.push(
                ring.submitRead(file, b, (i % 64) * BLOCK, (error, bytes) => {
                  calls[i]!++;
                  outcomes[i] = error ?? bytes;
                  if (--left === 0) resolve();
                }),
              );
            });
            // Depth 2: all but the first two are queued; every third queued one is cancelled.
            for (let i = 2; i < 32; i += 3) void ring.cancel(ids[i]!);
          });
          await new Promise((r) => setImmediate(r));
          assert.deepEqual(calls, new Array<number>(32).fill(1), `round ${round}: every callback ran exactly once`);
          outcomes.forEach((o, i) => {
            if (i >= 2 && (i - 2) % 3 === 0) assert.ok(o instanceof CancelledError, `round ${round}: read ${i} was cancelled while queued`);
            else {
              assert.equal(o, BLOCK, `round ${round}: read ${i} moved its block`);
              assert.ok(Buffer.from(buffers[i]!).equals(slice(i * BLOCK, BLOCK)), `round ${round}: read ${i} filled its own buffer`);
            }
          });
          for (const id of ids) assert.equal(ring.cancel(id), null, `round ${round}: a settled read's id names nothing`);
          assert.equal(ring.stats.inFlight + ring.stats.queued, 0);
        }
      } finally {
        await ring.close();
        await file.close();
      }
    });

    it('never reuses a read cancelled while queued: its queue still holds it, and each waiting read counts once', async () => {
      // Reads of a FIFO stay in flight until it is fed: the counts below cannot race a completion.
      const fifo = scratch.path('fifo');
      execFileSync('mkfifo', [fifo]);
      const ring = openRing({ depth: 2, backend });  // a fresh ring: no record to reuse yet
      const file = openFile(fifo, { write: true, direct: false });
      const writer = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
      let fed = false;
      const feed = () => {
        if (!fed) writeSync(writer, Buffer.alloc(16 * BLOCK, 7));
        fed = true;
      };
      try {
        const outcomes: Array<Error | number> = [];
        let left = 11;
        let all: () => void = () => {};
        const finished = new Promise<void>((r) => (all = r));
        const submit = (i: number) =>
          ring.submitRead(file, allocAligned(BLOCK), -1, (error, bytes) => {
            outcomes[i] = error ?? bytes;
            if (--left === 0) all();
          });
        const ids = Array.from({ length: 10 }, (_, i) => submit(i));
        await null;  // the pump ran: 2 in flight, 8 queued
        assert.deepEqual([ring.stats.inFlight, ring.stats.queued], [2, 8]);
        void ring.cancel(ids[5]!);
        assert.ok(outcomes[5] instanceof CancelledError, 'settled at once, while queued');
        submit(10);
        assert.deepEqual([ring.stats.inFlight, ring.stats.queued], [2, 8], 'the new read is one waiting read, the cancelled one none');
        feed();
        await finished;
        outcomes.forEach((o, i) => assert.ok(i === 5 ? o instanceof CancelledError : typeof o === 'number' && o > 0, `read ${i}`));
      } finally {
        feed();  // a failed assertion must not leave reads (and mocha) waiting
        await ring.close({ cancel: true });
        await file.close();
        closeSync(writer);
      }
    });
  });
}
