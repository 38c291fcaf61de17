/**
 * IoRing against real files with O_DIRECT, on both backends: every behaviour the storage tier
 * relies on must hold for io_uring and for the thread-pool fallback alike.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { readdirSync, truncateSync, writeSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  CancelledError,
  IoError,
  RingClosedError,
  allocAligned,
  liveNativeOps,
  openFile,
  openRing,
  type DirectFile,
  type IoBackendName,
  type IoRing,
} from '../../native/index.js';
import { runFixture, scratchDir } from './fixtures/scratch.js';

const BLOCK = 4096;
const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const openFds = () => readdirSync('/proc/self/fd').length;

for (const backend of ['io_uring', 'threadpool'] as IoBackendName[]) {
  describe(`native IoRing (${backend})`, function () {
    this.timeout(30_000);
    const scratch = scratchDir(`ring-${backend}`);
    let ring: IoRing;
    let file: DirectFile;

    beforeEach(() => {
      ring = openRing({ depth: 32, backend });
      file = openFile(scratch.path('data.bin'), { create: true });
    });
    afterEach(async () => {
      await ring.close({ cancel: true });
      file.close();
    });
    after(() => scratch.remove());

    it('submitRead reports bytes or the errno to its callback once, as read() resolves or rejects; a throwing callback cuts no batch short', async () => {
      // Its own file: the shared one must stay zero where other cases have not written.
      const file = openFile(scratch.path('submit-read.bin'), { create: true });
      const data = randomBytes(16 * BLOCK);
      const src = allocAligned(data.length);
      data.copy(src);
      await ring.write(file, src, 0);
      const bufs = Array.from({ length: 16 }, () => allocAligned(BLOCK));
      // The callback's exception surfaces on its own: catch it here instead of mocha.
      const mochaHandlers = process.listeners('uncaughtException');
      process.removeAllListeners('uncaughtException');
      const rethrown = new Promise<Error>((resolve) => process.once('uncaughtException', resolve));
      let outcomes: Array<[Error | null, number]>;
      try {
        outcomes = await new Promise<Array<[Error | null, number]>>((resolve) => {
          const got: Array<[Error | null, number]> = [];
          bufs.forEach((b, i) =>
            ring.submitRead(file, b, i * BLOCK, (error, bytes) => {
              got[i] = [error, bytes];
              if (got.filter(Boolean).length === 16) resolve(got);
              if (i === 3) throw new Error('a callback that throws');
            }),
          );
        });
        assert.equal((await rethrown).message, 'a callback that throws');
      } finally {
        process.removeAllListeners('uncaughtException');
        for (const h of mochaHandlers) process.on('uncaughtException', h);
      }
      outcomes.forEach(([error, bytes], i) => {
        assert.equal(error, null);
        assert.equal(bytes, BLOCK);
        assert.ok(bufs[i]!.equals(data.subarray(i * BLOCK, (i + 1) * BLOCK)), `block ${i}`);
      });
      // Past the end: 0 bytes; unaligned: EINVAL through the callback, as read() rejects.
      const [end, unaligned] = await Promise.all([
        new Promise<[Error | null, number]>((r) => ring.submitRead(file, bufs[0]!, 64 * BLOCK, (e, n) => r([e, n]))),
        new Promise<[Error | null, number]>((r) => ring.submitRead(file, bufs[1]!, 1, (e, n) => r([e, n]))),
      ]);
      assert.deepEqual(end, [null, 0]);
      assert.ok(unaligned[0] instanceof IoError && (unaligned[0] as IoError).code === 'EINVAL', String(unaligned[0]));
      assert.throws(() => ring.submitRead(file, bufs[0]!, 0, 'x' as never), TypeError);
      assert.throws(() => ring.submitRead(file, 'x' as never, 0, () => {}), TypeError);
      assert.throws(() => ring.submitRead(file, bufs[0]!, -5, () => {}), RangeError);
      assert.equal(liveNativeOps(), 0);
      await file.close();
    });

    it('reports the backend it runs on', () => {
      assert.equal(ring.backend, backend);
      assert.equal(ring.backendReason, 'requested');
      assert.equal(file.direct, true);
    });

    it('reads back random data at random aligned offsets and sizes, byte for byte', async () => {
      const size = 8 << 20;
      const model = Buffer.alloc(size);
      // The file is `size` long from the start (zeros, as the model): a first round whose last write
      // ends short of `size` would otherwise leave reads near the end past EOF (short, a flake).
      truncateSync(scratch.path('data.bin'), size);
      for (let round = 0; round < 3; round++) {
        // Disjoint writes in flight together, then overlapping reads in flight together.
        const writes = [];
        let at = randomInt(0, 8) * BLOCK;
        while (at < size) {
          const len = Math.min(randomInt(1, 65) * BLOCK, size - at);
          const buf = allocAligned(len);
          randomBytes(len).copy(buf);
          buf.copy(model, at);
          writes.push(ring.write(file, buf, at));
          at += len + randomInt(0, 4) * BLOCK;
        }
        const written = await ring.batch(writes);
        assert.ok(written.every((n) => n > 0));
        const reads = Array.from({ length: 32 }, async () => {
          const len = randomInt(1, 129) * BLOCK;
          const off = randomInt(0, (size - len) / BLOCK + 1) * BLOCK;
          const buf = allocAligned(len);
          assert.equal(await ring.read(file, buf, off), len);
          assert.ok(buf.equals(model.subarray(off, off + len)), `bytes differ at ${off}+${len}`);
        });
        await Promise.all(reads);
      }
    });

    it('does vectored reads and writes across several buffers', async () => {
      const parts = [allocAligned(BLOCK), allocAligned(3 * BLOCK), allocAligned(2 * BLOCK)];
      for (const p of parts) randomBytes(p.length).copy(p);
      assert.equal(await ring.writev(file, parts, 16 * BLOCK), 6 * BLOCK);
      const back = [allocAligned(2 * BLOCK), allocAligned(4 * BLOCK)];
      assert.equal(await ring.readv(file, back, 16 * BLOCK), 6 * BLOCK);
      assert.ok(Buffer.concat(back).equals(Buffer.concat(parts)));
      assert.equal(await ring.fsync(file), 0);
    });

    it('uses registered arena slots byte for byte', async () => {
      const arena = allocAligned(8 * BLOCK);
      assert.equal(ring.registerBuffers([arena]), 1);
      const slot = arena.subarray(2 * BLOCK, 4 * BLOCK);
      randomBytes(slot.length).copy(slot);
      const expected = Buffer.from(slot);
      await ring.write(file, arena, 40 * BLOCK, 2 * BLOCK, 2 * BLOCK);
      arena.fill(0);
      await ring.read(file, arena, 40 * BLOCK, 2 * BLOCK, 6 * BLOCK);
      assert.ok(arena.subarray(6 * BLOCK).equals(expected));
    });

    it('gives EINVAL with the file and offset for a misaligned O_DIRECT read', async () => {
      await ring.write(file, allocAligned(BLOCK), 0);
      await assert.rejects(ring.read(file, allocAligned(BLOCK), 100), (e: unknown) => {
        assert.ok(e instanceof IoError);
        assert.equal(e.code, 'EINVAL');
        assert.equal(e.offset, 100);
        assert.equal(e.file, file.path);
        assert.match(e.message, /offset 100/);
        return true;
      });
      // A misaligned buffer is refused the same way.
      const unaligned = allocAligned(2 * BLOCK).subarray(1, 1 + BLOCK);
      await assert.rejects(ring.read(file, unaligned, 0), { name: 'IoError', code: 'EINVAL', offset: 0 });
    });

    it('names a missing file', () => {
      const missing = scratch.path('nope/missing.bin');
      assert.throws(() => openFile(missing), { name: 'IoError', code: 'ENOENT', file: missing });
    });

    it('refuses ops on a closed ring, naming the op', async () => {
      await ring.close();
      await assert.rejects(ring.read(file, allocAligned(BLOCK), 0), (e: unknown) => e instanceof RingClosedError && /read .*data\.bin/.test(e.message));
      assert.throws(() => ring.registerBuffers([]), RingClosedError);
    });

    it('keeps bytes in flight under the budget and reads ahead of writes', async () => {
      const small = openRing({ depth: 64, backend, budgetBytes: 2 * BLOCK });
      const order: string[] = [];
      let worst = 0;
      const done = (name: string) => () => {
        order.push(name);
        worst = Math.max(worst, small.stats.inFlightBytes);
      };
      const ops = [
        small.write(file, allocAligned(BLOCK), 0).then(done('w0')),
        small.write(file, allocAligned(BLOCK), BLOCK).then(done('w1')),
        small.write(file, allocAligned(BLOCK), 2 * BLOCK).then(done('w2')),
        small.read(file, allocAligned(BLOCK), 0).then(done('r0')),
        small.read(file, allocAligned(BLOCK), BLOCK).then(done('r1')),
      ];
      await Promise.resolve();
      assert.ok(small.stats.inFlightBytes <= 2 * BLOCK, `in flight ${small.stats.inFlightBytes}`);
      assert.ok(small.stats.writesInFlight === 0, 'a write went before the reads');
      await Promise.all(ops);
      assert.ok(worst <= 2 * BLOCK, `in flight reached ${worst} bytes`);
      // Writes wait for the reads (and the budget): the first op to finish is a read.
      assert.match(order[0]!, /^r/);
      assert.deepEqual(order.slice().sort(), ['r0', 'r1', 'w0', 'w1', 'w2']);
      await small.close();
    });

    it('cancels queued ops definitely and reports the outcome of each', async () => {
      const narrow = openRing({ depth: 2, backend });
      const reqs = Array.from({ length: 20 }, (_, i) => narrow.read(file, allocAligned(BLOCK), i * BLOCK));
      const settled = Promise.allSettled(reqs);
      const outcomes = await Promise.all(reqs.map((r) => r.cancel()));
      const results = await settled;
      results.forEach((r, i) => {
        if (outcomes[i] === 'cancelled') assert.ok(r.status === 'rejected' && r.reason instanceof CancelledError);
        else assert.equal(r.status, 'fulfilled');
      });
      // Everything past the depth was still queued: those are cancelled for certain.
      assert.ok(outcomes.slice(2).every((o) => o === 'cancelled'));
      assert.equal(await reqs[0]!.cancel(), outcomes[0]); // asking again gives the same answer
      await narrow.close();
    });

    it('cancels an op the kernel is waiting on, with a definite outcome', async () => {
      const fifo = scratch.path(`pipe-${Date.now()}`);
      execFileSync('mkfifo', [fifo]);
      const pipe = openFile(fifo, { write: true, direct: false });
      const req = ring.read(pipe, Buffer.alloc(16), -1);
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(ring.stats.inFlight, 1);
      // The pool thread waits in poll() with the op's cancel eventfd, not in readv.
      assert.equal(await req.cancel(), 'cancelled');
      await assert.rejects(req, CancelledError);
      pipe.close();
    });

    it('drains ops in flight on close, and cancels them with close({ cancel: true })', async () => {
      const fifo = scratch.path(`pipe2-${Date.now()}`);
      execFileSync('mkfifo', [fifo]);
      const pipe = openFile(fifo, { write: true, direct: false });
      const local = openRing({ depth: 4, backend });
      const buf = Buffer.alloc(5);
      const req = local.read(pipe, buf, -1);
      await new Promise((r) => setTimeout(r, 20));
      let closed = false;
      const closing = local.close().then(() => (closed = true));
      await new Promise((r) => setTimeout(r, 20));
      assert.equal(closed, false, 'close returned while a read was in flight');
      writeSync(pipe.fd, 'hello');
      assert.equal(await req, 5);
      await closing;
      assert.equal(buf.toString(), 'hello');
      const other = openRing({ depth: 4, backend });
      const stuck = other.read(pipe, Buffer.alloc(5), -1);
      const queuedFile = other.read(file, allocAligned(BLOCK), 0);
      await new Promise((r) => setTimeout(r, 20));
      await other.close({ cancel: true });
      await assert.rejects(stuck, CancelledError);
      await queuedFile.then(() => undefined, (e) => assert.ok(e instanceof CancelledError));
      pipe.close();
    });

    it('runs 10,000 concurrent ops without leaking fds, native op records or memory', async () => {
      const fdsBefore = openFds();
      const round = async () => {
        const big = openRing({ depth: 64, backend });
        const buf = allocAligned(BLOCK);
        await big.write(file, allocAligned(256 * BLOCK).fill(3), 0);
        const reqs = Array.from({ length: 10_000 }, (_, i) => big.read(file, buf, (i % 256) * BLOCK));
        const done = await Promise.all(reqs);
        assert.equal(done.length, 10_000);
        assert.ok(done.every((n) => n === BLOCK));
        await big.close();
      };
      await round();
      global.gc?.();
      const rss = process.memoryUsage().rss;
      await round();
      await round();
      global.gc?.();
      assert.equal(liveNativeOps(), 0);
      assert.equal(openFds(), fdsBefore);
      const grown = process.memoryUsage().rss - rss;
      assert.ok(grown < 48 << 20, `rss grew ${grown} bytes over two rounds of 10,000 ops`);
    });

    it('reports a full file system (file size limit) as EFBIG with file and offset', async () => {
      const path = scratch.path(`limited-${backend}.bin`);
      // `ulimit -f 64` caps files at 64 KiB for the child; a write at 1 MiB crosses it.
      const r = await runFixture(fixture('write-past-limit.ts'), [path, backend, String(1 << 20)], 'ulimit -f 64; ');
      assert.equal(r.code, 0, r.stderr);
      const report = JSON.parse(r.stdout) as { name: string; code: string; file: string; offset: number };
      assert.deepEqual(report, { ...report, name: 'IoError', code: 'EFBIG', file: path, offset: 1 << 20 });
    });
  });
}
