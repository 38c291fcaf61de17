/**
 * The native I/O layer under misuse, on both backends: every case ends in a JS error naming
 * the errno (or a refusal with a code), never a crash, a hung op or a byte in the wrong file.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdirSync, openSync, readFileSync, readSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  CancelledError,
  DeadlineExceededError,
  IoError,
  RingClosedError,
  allocAligned,
  liveNativeOps,
  mapShared,
  openFile,
  openRing,
  openSharedFile,
  unmapShared,
  type IoBackendName,
} from '../../native/index.js';
import { binding, type RawIoBackend } from '../../native/lib/binding.js';
import { runFixture, scratchDir } from './fixtures/scratch.js';

const BLOCK = 4096;
const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

function rawBackend(backend: IoBackendName, depth = 4): RawIoBackend {
  const raw = binding();
  const Cls = backend === 'io_uring' ? raw.UringRing : raw.PoolIo;
  return new Cls(depth, () => {}, new Uint32Array(16), new Float64Array(16));
}

for (const backend of ['io_uring', 'threadpool'] as IoBackendName[]) {
  describe(`native misuse (${backend})`, function () {
    this.timeout(60_000);
    const scratch = scratchDir(`misuse-${backend}`);
    after(() => scratch.remove());

    it('refuses unaligned O_DIRECT offsets, lengths and buffers with EINVAL', async () => {
      const ring = openRing({ depth: 8, backend });
      const file = openFile(scratch.path('unaligned.bin'), { create: true });
      await ring.write(file, allocAligned(4 * BLOCK), 0);
      const cases = [
        ring.read(file, allocAligned(BLOCK), 100),
        ring.read(file, allocAligned(BLOCK), 0, 100),
        ring.write(file, allocAligned(2 * BLOCK).subarray(7, 7 + BLOCK), 0),
        ring.write(file, allocAligned(BLOCK), 3),
      ];
      for (const c of cases) await assert.rejects(c, (e: unknown) => e instanceof IoError && e.code === 'EINVAL' && e.file === file.path);
      await ring.close();
      await file.close();
    });

    it('reads past the end of file as 0 bytes and a straddling read as the bytes that exist', async () => {
      const ring = openRing({ depth: 8, backend });
      const file = openFile(scratch.path('eof.bin'), { create: true });
      await ring.write(file, allocAligned(2 * BLOCK).fill(9), 0);
      assert.equal(await ring.read(file, allocAligned(BLOCK), 1 << 30), 0);
      assert.equal(await ring.read(file, allocAligned(4 * BLOCK), BLOCK), BLOCK);
      await ring.close();
      await file.close();
    });

    it('refuses bad offsets, lengths and options before anything reaches the kernel', async () => {
      const ring = openRing({ depth: 8, backend });
      const file = openFile(scratch.path('args.bin'), { create: true });
      const buf = allocAligned(BLOCK);
      for (const offset of [-2, 1.5, NaN, Infinity, 2 ** 60]) await assert.rejects(ring.read(file, buf, offset), RangeError);
      await assert.rejects(ring.read(file, buf, 0, BLOCK + 1), RangeError);
      await assert.rejects(ring.read(file, buf, 0, -1), RangeError);
      await assert.rejects(ring.read(file, buf, 0, BLOCK, -4096), RangeError);
      await assert.rejects(ring.read(file, buf, 0, 1, BLOCK), RangeError);
      await assert.rejects(ring.readv(file, [], 0), RangeError);
      await assert.rejects(ring.read(file, buf, 0, BLOCK, 0, { deadlineMs: -1 }), RangeError);
      await assert.rejects(ring.read({ fd: 0, path: 'x' } as never, buf, 0), TypeError);
      await assert.rejects(ring.read(file, 'not a buffer' as never, 0), (e: unknown) => e instanceof TypeError || e instanceof RangeError);
      assert.equal(ring.stats.inFlight, 0);
      await ring.close();
      await file.close();
      assert.equal(liveNativeOps(), 0);
    });

    it('refuses depths 0 to 1e9 outside 1..32768, in TypeScript and in the raw binding', () => {
      for (const depth of [0, -1, 0.5, 32769, 1e9, NaN]) {
        assert.throws(() => openRing({ depth, backend }), RangeError);
        assert.throws(() => rawBackend(backend, depth), (e: unknown) => e instanceof RangeError && (e as { code?: string }).code === 'ERR_OUT_OF_RANGE');
      }
      for (const depth of [1, 4096]) rawBackend(backend, depth).close();
    });

    it('closes twice harmlessly and refuses every op after close, naming it', async () => {
      const ring = openRing({ depth: 4, backend });
      const file = openFile(scratch.path('closed.bin'), { create: true });
      await ring.write(file, allocAligned(BLOCK), 0);
      const first = ring.close();
      assert.equal(ring.close(), first);
      await first;
      await assert.rejects(ring.read(file, allocAligned(BLOCK), 0), RingClosedError);
      assert.throws(() => ring.registerBuffers([]), RingClosedError);
      const other = openRing({ depth: 4, backend });
      const closing = file.close();
      assert.equal(file.close(), closing);
      await closing;
      await assert.rejects(other.write(file, allocAligned(BLOCK), 0), (e: unknown) => e instanceof IoError && e.code === 'EBADF' && e.op === 'write');
      await other.close();
      // The raw backend after close: a coded error, not a use of a torn-down ring.
      const raw = rawBackend(backend);
      raw.close();
      raw.close();
      assert.throws(() => raw.submit(), { code: 'ERING_CLOSED' });
      assert.throws(() => raw.queue(1, 0, 0, allocAligned(BLOCK), 0, BLOCK, 0, -1), { code: 'ERING_CLOSED' });
    });

    it('reports writes to a read-only file as EBADF', async () => {
      const path = scratch.path('ro.bin');
      writeFileSync(path, Buffer.alloc(BLOCK));
      const ring = openRing({ depth: 4, backend });
      const file = openFile(path); // read-only
      await assert.rejects(ring.write(file, allocAligned(BLOCK), 0), (e: unknown) => e instanceof IoError && e.code === 'EBADF');
      assert.equal(await ring.read(file, allocAligned(BLOCK), 0), BLOCK);
      await ring.close();
      await file.close();
    });

    it('reports a full file system as ENOSPC (a 64 KiB tmpfs)', async function () {
      const mount = scratch.path('tmpfs');
      mkdirSync(mount);
      try {
        execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', mount], { stdio: 'ignore' });
      } catch {
        this.skip(); // needs root; the file-size limit spec (EFBIG) covers the rest
      }
      try {
        const ring = openRing({ depth: 4, backend });
        const file = openFile(`${mount}/full.bin`, { create: true, direct: 'auto' });
        const buf = allocAligned(256 * 1024).fill(1);
        await assert.rejects(
          (async () => {
            for (let at = 0; at < 1 << 20; at += buf.length) {
              const n = await ring.write(file, buf, at);
              if (n < buf.length) throw new Error(`short write of ${n}`);
            }
          })(),
          (e: unknown) => e instanceof IoError && e.code === 'ENOSPC' && e.file === file.path,
        );
        await ring.close();
        await file.close();
      } finally {
        execFileSync('umount', [mount]);
      }
    });

    it('keeps buffers detached (transferred) in flight alive through GC, and refuses submitting a detached one', async () => {
      const dir = scratch.path('detach');
      mkdirSync(dir);
      const r = await runFixture(fixture('detach-in-flight.ts'), [dir, backend], '', ['--expose-gc']);
      assert.equal(r.code, 0, `exit ${r.code}: ${r.stderr.slice(-2000)}`);
      const report = JSON.parse(r.stdout) as Record<string, unknown>;
      assert.equal(report['fifoRead'], 64 * 1024);
      assert.equal(report['churnIntact'], true);
      // Reads already submitted complete into the pinned memory; those still queued in the ring
      // when their buffer went are refused. Nothing else.
      const reads = report['directReads'] as Record<string, number>;
      assert.deepEqual(Object.keys(reads).filter((k) => k !== String(BLOCK) && k !== 'ERR_BUFFER_DETACHED'), []);
      assert.ok((reads[String(BLOCK)] ?? 0) >= 1, JSON.stringify(reads));
      assert.equal((reads[String(BLOCK)] ?? 0) + (reads['ERR_BUFFER_DETACHED'] ?? 0), 256);
      assert.deepEqual(report['detachedSubmit'], { name: 'TypeError', code: 'ERR_BUFFER_DETACHED' });
      assert.equal(report['liveOps'], 0);
    });

    it('closing a file with writes queued drains them before the fd closes: no byte lands in a file that reuses the fd', async () => {
      const ring = openRing({ depth: 1, backend });
      const a = openFile(scratch.path('a.bin'), { create: true });
      const writes = Array.from({ length: 8 }, (_, i) => ring.write(a, allocAligned(BLOCK).fill(0xa0 + i), i * BLOCK));
      const closing = a.close();
      assert.equal(a.closed, true);
      // If the fd were closed now, B would get its number and the queued 32 KiB would go to B.
      const b = openFile(scratch.path('b.bin'), { create: true });
      assert.notEqual(b.fd, a.fd);
      assert.deepEqual(await Promise.all(writes), Array(8).fill(BLOCK));
      await closing;
      const back = readFileSync(scratch.path('a.bin'));
      assert.equal(back.length, 8 * BLOCK);
      for (let i = 0; i < 8; i++) assert.ok(back.subarray(i * BLOCK, (i + 1) * BLOCK).every((x) => x === 0xa0 + i));
      assert.equal(statSync(scratch.path('b.bin')).size, 0);
      // Now A's fd number is free: a file opened next may take it, and nothing of A's reaches it.
      const c = openFile(scratch.path('c.bin'), { create: true });
      await new Promise((r) => setTimeout(r, 20));
      assert.equal(statSync(scratch.path('c.bin')).size, 0);
      await Promise.all([b.close(), c.close()]);
      await ring.close();
    });

    it('closing a file with cancel settles each queued write definitely, then closes the fd', async () => {
      const ring = openRing({ depth: 1, backend });
      const path = scratch.path('cancel-close.bin');
      const a = openFile(path, { create: true });
      const writes = Array.from({ length: 8 }, (_, i) => ring.write(a, allocAligned(BLOCK).fill(1 + i), i * BLOCK));
      const settled = Promise.allSettled(writes);
      await a.close({ cancel: true });
      const results = await settled;
      const data = readFileSync(path);
      results.forEach((r, i) => {
        if (r.status === 'fulfilled') assert.ok(data.subarray(i * BLOCK, (i + 1) * BLOCK).every((x) => x === 1 + i));
        else assert.ok(r.reason instanceof CancelledError, String(r.reason));
      });
      assert.ok(results.filter((r) => r.status === 'rejected').length >= 6, 'queued writes behind depth 1 are cancelled');
      assert.equal(a.pending, 0);
      await ring.close();
    });

    it('close() called from a submitRead callback still settles every op exactly once', async () => {
      // close() pumps at once; a pump that reaped there would overwrite the shared ids/results
      // arrays the batch being settled is still reading (ops lost, close never resolving).
      const path = scratch.path('close-in-callback.bin');
      const total = 512;
      writeFileSync(path, Buffer.alloc(total * BLOCK, 7));
      const ring = openRing({ depth: 64, backend });
      const file = openFile(path, { direct: false });
      const outcomes = new Array<number>(total).fill(0);
      let closing: Promise<void> | null = null;
      for (let i = 0; i < total; i++) {
        ring.submitRead(file, allocAligned(BLOCK), i * BLOCK, (error, bytes) => {
          outcomes[i]!++;
          if (error) assert.ok(error instanceof IoError || error instanceof CancelledError, String(error));
          else assert.equal(bytes, BLOCK);
          closing ??= ring.close();
        });
      }
      let timer: NodeJS.Timeout | undefined;
      const stuck = new Promise<string>((resolve) => (timer = setTimeout(() => resolve('stuck'), 5000)));
      const closed = (async () => {
        while (!closing) await new Promise((r) => setImmediate(r));
        await closing;
        return 'closed';
      })();
      const how = await Promise.race([closed, stuck]);
      clearTimeout(timer);
      const counts = outcomes.reduce((m, n) => m.set(n, (m.get(n) ?? 0) + 1), new Map<number, number>());
      assert.equal(how, 'closed', `close never resolved; outcomes per op ${JSON.stringify([...counts])}, stats ${JSON.stringify(ring.stats)}`);
      assert.deepEqual([...counts], [[1, total]]);
      await file.close();
      assert.equal(liveNativeOps(), 0);
    });

    it('refuses a raw queueVec or registerBuffers whose buffers array closed the ring (an accessor) while it was read, without crashing', async () => {
      // Reading an array element can run JS (an accessor); the ring may be closed or have an op
      // in flight by the time the elements are read. Each case in its own child: a SIGSEGV.
      const expected: Record<string, string> = {
        queueVecClosing: 'ERING_CLOSED',
        registerClosing: 'ERING_CLOSED',
        // The pool registers nothing, so an op in flight does not matter to it.
        registerQueueing: backend === 'io_uring' ? 'EBUSY' : 'returned 2',
      };
      for (const [name, outcome] of Object.entries(expected)) {
        const r = await runFixture(fixture('raw-misuse.ts'), [scratch.dir, backend, name]);
        assert.equal(r.code, 0, `${name}: exit ${r.code} ${r.signal ?? ''} ${r.stderr.slice(-1500)}`);
        const report = JSON.parse(r.stdout) as { outcome: string; completions: string[]; inFlight: number };
        assert.equal(report.outcome, outcome, name);
        assert.equal(report.inFlight, 0, name);
      }
    });

    it('refuses resizable ArrayBuffers for the raw completion arrays and op buffers, without crashing', async () => {
      // The native side keeps the arrays' address and length, and an op's buffer until it is
      // reaped: a buffer JS can shrink under them is refused, as a detached one is.
      for (const name of ['resizableIds', 'resizableBuffer', 'resizableVec', 'resizableRegister']) {
        const r = await runFixture(fixture('raw-misuse.ts'), [scratch.dir, backend, name]);
        assert.equal(r.code, 0, `${name}: exit ${r.code} ${r.signal ?? ''} ${r.stderr.slice(-1500)}`);
        const report = JSON.parse(r.stdout) as { outcome: string; completions: string[]; inFlight: number };
        assert.equal(report.outcome, 'ERR_INVALID_ARG_TYPE', name);
        assert.deepEqual(report.completions, [], name);
        assert.equal(report.inFlight, 0, name);
      }
    });

    it('keeps completing after the raw completion callback throws, and then lets the process exit', async () => {
      // A child: the callback's exception is an uncaught one there. A child whose ring still
      // holds the loop exits 124 on its own.
      const r = await runFixture(fixture('raw-misuse.ts'), [scratch.dir, backend, 'throwingCallback'], '', ['--expose-gc']);
      assert.equal(r.code, 0, `exit ${r.code} ${r.signal ?? ''} ${r.stdout} ${r.stderr.slice(-1500)}`);
      const [first, last] = r.stdout.split('\n');
      const report = JSON.parse(first!) as { outcome: string; completions: string[]; inFlight: number; uncaught: string[] };
      assert.deepEqual(report.uncaught, ['thrown by the completion callback']);
      assert.deepEqual(report.completions, [`5:${BLOCK}`, `6:${BLOCK}`]);
      assert.equal(report.inFlight, 0);
      // The reference held while ops were in flight was given back despite the exception.
      assert.deepEqual(JSON.parse(last!), { collected: true });
    });

    it('forgets the earlier registration when registerBuffers fails: the old slot then reads as plain memory', async function () {
      const path = scratch.path('register-fail.bin');
      writeFileSync(path, Buffer.alloc(4 * BLOCK, 3));
      const ring = openRing({ depth: 4, backend });
      const file = openFile(path);
      const slot = allocAligned(BLOCK);
      assert.equal(ring.registerBuffers([slot]), 1);
      assert.equal(await ring.read(file, slot, 0), BLOCK);
      // The kernel refuses file-backed pages as fixed buffers (the pool takes anything).
      const sharedFd = openSharedFile(scratch.path('register-fail.shm'), BLOCK, { create: true });
      const mapped = mapShared(sharedFd, BLOCK);
      let refused = false;
      try {
        ring.registerBuffers([slot, new Uint8Array(mapped)]);
      } catch (error) {
        refused = true;
        assert.equal(typeof (error as { code?: unknown }).code, 'string', String(error));
      }
      try {
        if (backend === 'io_uring' && !refused) this.skip(); // a kernel that registers file pages
        // The native side unregistered `slot` before the call that failed.
        assert.equal(await ring.read(file, slot, 0), BLOCK);
        assert.equal(await new Promise((resolve) => ring.submitRead(file, slot, BLOCK, (error, bytes) => resolve(error ?? bytes))), BLOCK);
      } finally {
        unmapShared(mapped);
        closeSync(sharedFd);
        await ring.close();
        await file.close();
      }
    });

    it('registers several slots of one ArrayBuffer each under its own index', async () => {
      const path = scratch.path('register-slots.bin');
      writeFileSync(path, Buffer.alloc(4 * BLOCK, 4));
      const ring = openRing({ depth: 8, backend });
      const file = openFile(path);
      const arena = allocAligned(4 * BLOCK);
      const slots = [0, 1, 2, 3].map((i) => arena.subarray(i * BLOCK, (i + 1) * BLOCK));
      assert.equal(ring.registerBuffers([slots[2]!, slots[0]!, slots[3]!, slots[1]!]), 4);
      // What the pump hands the binding: each row's bufIndex (the table's seventh number).
      const native = (ring as unknown as { native: RawIoBackend }).native;
      const indexes: number[] = [];
      const queueMany = native.queueMany.bind(native);
      const spy: RawIoBackend['queueMany'] = (start, end, table, reap, ...buffers) => {
        for (let row = start; row < end; row++) indexes.push(table[row * 7 + 6]!);
        return queueMany(start, end, table, reap, ...buffers);
      };
      Object.defineProperty(native, 'queueMany', { value: spy }); // the prototype's is read-only
      assert.deepEqual(await Promise.all(slots.map((s, i) => ring.read(file, s, i * BLOCK))), [BLOCK, BLOCK, BLOCK, BLOCK]);
      // Part of a slot is inside it; a range across two slots is inside neither.
      assert.equal(await ring.read(file, arena, 0, BLOCK / 2, 3 * BLOCK), BLOCK / 2);
      assert.equal(await ring.read(file, arena, 0, 2 * BLOCK, BLOCK), 2 * BLOCK);
      assert.deepEqual(indexes, [1, 3, 0, 2, 2, -1]);
      await ring.close();
      await file.close();
    });

    it('settles a read blocked on a FIFO by its deadline, by cancel and by close({ cancel: true })', async () => {
      // Nothing ever feeds the FIFO: only cancellation can settle these reads.
      const fifo = scratch.path('blocked.fifo');
      execFileSync('mkfifo', [fifo]);
      const pipe = openFile(fifo, { write: true, direct: false });
      const ring = openRing({ depth: 4, backend });
      let timer: NodeJS.Timeout | undefined;
      const within = <T>(p: Promise<T>, what: string) =>
        Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not settled in 3 s`)), 3000)))]).finally(() => clearTimeout(timer));
      try {
        const t0 = performance.now();
        await assert.rejects(within(ring.read(pipe, Buffer.alloc(16), -1, 16, 0, { deadlineMs: 50 }), 'deadline'), DeadlineExceededError);
        assert.ok(performance.now() - t0 < 2000);
        const byId = ring.read(pipe, Buffer.alloc(16), -1);
        await new Promise((r) => setTimeout(r, 20));
        assert.equal(ring.stats.inFlight, 1, 'the read is in flight, not queued');
        assert.equal(await within(ring.cancel(byId.id)!, 'cancel'), 'cancelled');
        await assert.rejects(byId, CancelledError);
        const atClose = ring.read(pipe, Buffer.alloc(16), -1);
        await new Promise((r) => setTimeout(r, 20));
        await within(ring.close({ cancel: true }), 'close');
        await assert.rejects(atClose, CancelledError);
        assert.equal(liveNativeOps(), 0);
      } finally {
        writeFileSync(pipe.fd, Buffer.alloc(64)); // unblocks anything still waiting, whatever failed
        await ring.close();
        await pipe.close();
      }
    });

    it('settles a write blocked on a full FIFO by its deadline: short, with the bytes that went (the stream moved by them), on both backends', async () => {
      const fifo = scratch.path('full.fifo');
      execFileSync('mkfifo', [fifo]);
      const pipe = openFile(fifo, { write: true, direct: false });
      const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
      const ring = openRing({ depth: 4, backend });
      const size = 1 << 20; // more than a pipe holds: the write waits for a reader that never reads
      let settled = false;
      const write = ring.write(pipe, Buffer.alloc(size, 1), -1, size, 0, { deadlineMs: 50 }).then(
        (n) => n,
        (e: unknown) => e,
      ).finally(() => (settled = true));
      try {
        let timer: NodeJS.Timeout | undefined;
        const outcome = await Promise.race([write, new Promise((r) => (timer = setTimeout(() => r('not settled in 3 s'), 3000)))]);
        clearTimeout(timer);
        // The pipe took some of it before the write waited: that count, not a DeadlineExceededError
        // that would hide the bytes the reader will see.
        assert.ok(typeof outcome === 'number' && outcome > 0 && outcome < size, String(outcome));
      } finally {
        // Whatever failed, let a stuck write finish: read what it writes.
        const drain = Buffer.alloc(1 << 16);
        while (!settled) {
          try {
            readSync(reader, drain);
          } catch {
            // empty for now (EAGAIN)
          }
          await new Promise((r) => setTimeout(r, 1));
        }
        closeSync(reader);
        await ring.close();
        await pipe.close();
      }
    });

    it('refuses an unknown op kind, a vectored kind on queue() and a duplicate id in the raw binding', () => {
      const raw = rawBackend(backend);
      const fd = openSync(scratch.path('raw.bin'), 'w+');
      const buf = allocAligned(BLOCK);
      assert.throws(() => raw.queue(1, 99, fd, buf, 0, BLOCK, 0, -1), (e: unknown) => e instanceof RangeError && /unknown op kind 99/.test(e.message));
      assert.throws(() => raw.queue(1, -1, fd, buf, 0, BLOCK, 0, -1), RangeError);
      assert.throws(() => raw.queue(1, 3, fd, buf, 0, BLOCK, 0, -1), RangeError);
      assert.throws(() => raw.queueVec(1, 0, fd, [buf], 0), RangeError);
      assert.equal(raw.inFlight, 0);
      assert.equal(liveNativeOps(), 0);
      closeSync(fd);
      raw.close();
    });

    it('turns wrong argument types to the raw binding into TypeErrors and RangeErrors, leaking nothing', async () => {
      const raw = rawBackend(backend);
      const fd = openSync(scratch.path('types.bin'), 'w+');
      const buf = allocAligned(BLOCK);
      const calls: Array<() => unknown> = [
        () => raw.queue('1' as never, 0, fd, buf, 0, BLOCK, 0, -1),
        () => raw.queue(1, 0, 'fd' as never, buf, 0, BLOCK, 0, -1),
        () => raw.queue(1, 0, -5, buf, 0, BLOCK, 0, -1),
        () => raw.queue(1, 0, fd, {} as never, 0, BLOCK, 0, -1),
        () => raw.queue(1, 0, fd, new Uint16Array(8) as never, 0, 8, 0, -1),
        () => raw.queue(1, 0, fd, null, 0, BLOCK, 0, -1),
        () => raw.queue(1, 0, fd, buf, 0, BLOCK + 1, 0, -1),
        () => raw.queue(1, 0, fd, buf, BLOCK, 1, 0, -1),
        () => raw.queue(1, 0, fd, buf, 0, BLOCK, -7, -1),
        () => raw.queue(1, 0, fd, buf, 0, BLOCK, 0, 'x' as never),
        () => (raw.queue as (...a: unknown[]) => void)(),
        () => raw.queueVec(1, 3, fd, 'nope' as never, 0),
        () => raw.queueVec(1, 3, fd, [1, 2] as never, 0),
        () => raw.queueVec(1, 3, fd, [], 0),
        () => raw.registerBuffers(5 as never),
        () => raw.registerBuffers([{}] as never),
        () => raw.cancel('a' as never),
        () => new (binding().UringRing)(4, null as never, new Uint32Array(4), new Float64Array(4)),
        () => new (binding().PoolIo)(4, () => {}, new Uint32Array(0), new Float64Array(4)),
        () => new (binding().PoolIo)(4, () => {}, new Float64Array(4) as never, new Float64Array(4)),
        () => new (binding().UringRing)('4' as never, () => {}, new Uint32Array(4), new Float64Array(4)),
        () => raw.queueMany(0, 1, new Uint32Array(7) as never, false, buf),
        () => raw.queueMany(0, 1, new Float64Array(7), false, 'x' as never),
        () => raw.queueMany(0, 2, new Float64Array(7), false, buf, buf),
        () => raw.queueMany(0, 2, new Float64Array(14), false, buf),
        () => raw.queueMany(1, 0, new Float64Array(7), false, buf),
        () => raw.queueMany(-1, 0, new Float64Array(7), false, buf),
      ];
      calls.forEach((call, i) => assert.throws(call, (e: unknown) => e instanceof TypeError || e instanceof RangeError, `call ${i}`));
      assert.equal(raw.inFlight, 0);
      assert.equal(liveNativeOps(), 0);
      // queueMany: a refused row says its index; the rows before it are in flight, none after.
      const table = new Float64Array(3 * 7);
      table.set([11, 0, fd, 0, BLOCK, 0, -1, 12, 99, fd, 0, BLOCK, 0, -1, 13, 0, fd, 0, BLOCK, 0, -1]);
      assert.throws(() => raw.queueMany(0, 3, table, false, buf, buf, buf), (e: unknown) => e instanceof RangeError && (e as { index?: number }).index === 1);
      assert.equal(raw.inFlight, 1);
      // A first op under an id is taken; a second under the same id is refused (EEXIST).
      raw.queue(7, 2, fd, null, 0, 0, 0, -1);
      assert.throws(() => raw.queue(7, 2, fd, null, 0, 0, 0, -1), { code: 'EEXIST' });
      raw.submit();
      const until = Date.now() + 5000;
      while (raw.inFlight > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
      assert.equal(raw.inFlight, 0);
      raw.close();
      closeSync(fd);
    });
  });
}

describe('native misuse (memory and fixed buffers)', () => {
  it('refuses raw allocAligned sizes and alignments that are not whole numbers in range, with codes', () => {
    const raw = binding();
    for (const size of [NaN, Infinity, -Infinity, -1, 1.5, 2 ** 60])
      assert.throws(() => raw.allocAligned(size, BLOCK), (e: unknown) => e instanceof RangeError && (e as { code?: string }).code === 'ERR_OUT_OF_RANGE', `size ${size}`);
    for (const alignment of [NaN, Infinity, 0, -8])
      assert.throws(() => raw.allocAligned(16, alignment), (e: unknown) => e instanceof RangeError && (e as { code?: string }).code === 'ERR_OUT_OF_RANGE', `alignment ${alignment}`);
    assert.throws(() => raw.allocAligned('16' as never, BLOCK), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' });
    assert.equal(raw.allocAligned(0, BLOCK).length, 0);
  });

  it('refuses raw bufferAddress of a detached buffer or a non-byte view, with codes', () => {
    const raw = binding();
    const gone = new Uint8Array(16);
    structuredClone(gone.buffer, { transfer: [gone.buffer] });
    assert.throws(() => raw.bufferAddress(gone), { name: 'TypeError', code: 'ERR_BUFFER_DETACHED' });
    for (const value of [undefined, 5, new Float64Array(4), new DataView(new ArrayBuffer(8))])
      assert.throws(() => raw.bufferAddress(value as never), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' });
    const buf = allocAligned(2 * BLOCK);
    assert.equal(raw.bufferAddress(buf.subarray(BLOCK)) - raw.bufferAddress(buf), BigInt(BLOCK));
  });

  it('gives a raw io_uring op outside its registered buffer a RangeError with a code', () => {
    const raw = binding();
    const ring = new raw.UringRing(4, () => {}, new Uint32Array(4), new Float64Array(4));
    const buf = allocAligned(BLOCK);
    assert.throws(() => ring.queue(1, 0, 0, buf, 0, BLOCK, 0, 5), { name: 'RangeError', code: 'ERR_OUT_OF_RANGE' });
    assert.equal(ring.inFlight, 0);
    ring.close();
  });
});
