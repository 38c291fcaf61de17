/**
 * The H200 checks that need the event loop: completions as promises (copies, events, gathers),
 * a timer firing on schedule while a 1 GiB copy runs (and, for contrast, what synchronize()
 * does to it), a VMM allocation imported with an fd another process sent, and a finalizer
 * releasing pinned memory nobody references. Needs `node --expose-gc`.
 */
import { spawn } from 'node:child_process';
import { createHash, randomFillSync } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CudaEvent, CudaStream, DeviceMemory, FdChannel, Gatherer, HostMemory, liveCudaObjects, livePinnedBuffers, openFile, openRing, type ChannelMessage, type IoBackendName } from '../../native/index.js';
import { binding } from '../../native/lib/binding.js';

export interface AsyncContext {
  host: HostMemory;
  back: HostMemory;
  dev: DeviceMemory;
  stream: CudaStream;
  gatherer: Gatherer;
  arena: number;
  /** The bundled vmm-peer script. */
  peerScript: string;
}

type Check = (ctx: AsyncContext) => Promise<string>;
const MiB = 1 << 20;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
function assert(cond: unknown, message: string): asserts cond {
  if (!cond) throw new Error(message);
}

/** Ticks of a 2 ms interval while `body` runs: how often and how late the loop got to them. */
async function timerDuring(body: () => Promise<void> | void): Promise<{ ms: number; ticks: number; maxGapMs: number }> {
  let last = performance.now();
  let maxGap = 0;
  let ticks = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    maxGap = Math.max(maxGap, now - last);
    last = now;
    ticks++;
  }, 2);
  const t0 = performance.now();
  last = t0;
  await body();
  const ms = performance.now() - t0;
  // The gap still open when the body ends counts too (a blocked loop never ticked at all).
  maxGap = Math.max(maxGap, performance.now() - last);
  clearInterval(timer);
  return { ms, ticks, maxGapMs: maxGap };
}

export const asyncChecks: Record<string, Check> = {
  'completions arrive as promises: copies, events and gathers, without polling': async ({ host, back, dev, stream, gatherer }) => {
    const size = 64 * MiB;
    randomFillSync(host.bytes.subarray(0, size));
    back.bytes.fill(0, 0, size);
    stream.copyHostToDevice(dev, host, [{ dst: 0, src: 0, len: size }]);
    stream.copyDeviceToHost(back, dev, [{ dst: 0, src: 0, len: size }]);
    await stream.whenDone();
    assert(back.bytes.subarray(0, size).equals(host.bytes.subarray(0, size)), 'bytes differ after whenDone');
    const event = CudaEvent.create();
    stream.memset(dev, 0x3c, size);
    event.record(stream);
    await event.whenDone();
    assert(event.done, 'event not complete after whenDone');
    event.destroy();
    // Two gathers in flight at once through the two tables, awaited together.
    const block = 64 * 1024;
    const n = 512;
    const hostDev = host.deviceAddress;
    const runs = (base: number) => Float64Array.from({ length: n * 3 }, (_, k) => {
      const i = Math.floor(k / 3);
      return [Number(hostDev) + (base + i) * block, Number(dev.address) + (base + i) * block, block][k % 3]!;
    });
    await Promise.all([gatherer.enqueuePackedAsync(stream, runs(0), n), gatherer.enqueuePackedAsync(stream, runs(n), n)]);
    stream.copyDeviceToHost(back, dev, [{ dst: 0, src: 0, len: 2 * n * block }]);
    await stream.whenDone();
    assert(back.bytes.subarray(0, 2 * n * block).equals(host.bytes.subarray(0, 2 * n * block)), 'gathered bytes differ');
    const pending = (binding().cuda['pendingCompletions'] as () => number)();
    assert(pending === 0, `${pending} completions still pending`);
    return `64 MiB round trip, an event and 2 x ${n} gathered 64 KiB blocks, all awaited; 0 pending`;
  },

  'an event-loop timer fires on schedule during a 1 GiB copy': async ({ host, back, dev, stream, arena }) => {
    const size = Math.min(arena, 1 << 30);
    const copy = () => {
      stream.copyHostToDevice(dev, host, [{ dst: 0, src: 0, len: size }]);
      stream.copyDeviceToHost(back, dev, [{ dst: 0, src: 0, len: size }]);
    };
    copy();
    await stream.whenDone(); // warm
    const awaited = await timerDuring(async () => {
      copy();
      await stream.whenDone();
    });
    const blocked = await timerDuring(() => {
      copy();
      stream.synchronize();
    });
    assert(awaited.ms > 10, `the copy took only ${awaited.ms.toFixed(1)} ms`);
    assert(awaited.maxGapMs < 10, `the loop stalled ${awaited.maxGapMs.toFixed(1)} ms while awaiting the copy`);
    assert(awaited.ticks >= awaited.ms / 4, `only ${awaited.ticks} ticks in ${awaited.ms.toFixed(1)} ms`);
    return `1 GiB each way awaited: ${awaited.ms.toFixed(1)} ms, ${awaited.ticks} ticks of a 2 ms timer, longest gap ${awaited.maxGapMs.toFixed(2)} ms; with synchronize(): ${blocked.ms.toFixed(1)} ms, ${blocked.ticks} ticks, longest gap ${blocked.maxGapMs.toFixed(1)} ms`;
  },

  'a VMM allocation imported with an fd sent by another process reads back exactly': async ({ back, stream, peerScript }) => {
    const dir = mkdtempSync(join(tmpdir(), 'orbitkv-vmm-'));
    const path = join(dir, 'vmm.sock');
    let accept!: (c: FdChannel) => void;
    const accepted = new Promise<FdChannel>((resolve) => (accept = resolve));
    const server = createServer({ pauseOnConnect: true }, (socket) => accept(FdChannel.adopt(socket)));
    await new Promise<void>((resolve) => server.listen(path, resolve));
    const child = spawn(process.execPath, [peerScript, path], { stdio: ['ignore', 'inherit', 'inherit'], env: process.env });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    try {
      const channel = await Promise.race([accepted, exited.then((code) => Promise.reject(new Error(`peer exited ${code} before connecting`)))]);
      const message = await new Promise<ChannelMessage>((resolve) => channel.once('message', resolve));
      const { pid, size, sha256 } = JSON.parse(message.bytes.toString()) as { pid: number; size: number; sha256: string };
      assert(pid === child.pid && channel.peer.pid === child.pid, 'the message is not from the peer process');
      assert(message.fds.length === 1, `${message.fds.length} fds arrived`);
      const mem = DeviceMemory.importVmm(message.fds[0]!, size);
      closeSync(message.fds[0]!);
      back.bytes.fill(0, 0, size);
      stream.copyDeviceToHost(back, mem, [{ dst: 0, src: 0, len: size }]);
      await stream.whenDone();
      const digest = createHash('sha256').update(back.bytes.subarray(0, size)).digest('hex');
      mem.free();
      await channel.send(Buffer.from('done'));
      const code = await exited;
      channel.close();
      assert(digest === sha256, `sha256 ${digest} != ${sha256}`);
      assert(code === 0, `peer exited ${code}`);
      return `${size} bytes from pid ${pid} (SO_PEERCRED agrees), sha256 matches`;
    } finally {
      child.kill();
      server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },

  'a finalizer releases pinned memory nobody references': async () => {
    const gc = (globalThis as { gc?: () => void }).gc;
    assert(gc, 'run with node --expose-gc');
    const hostDevicePointer = binding().cuda['hostDevicePointer'] as (address: bigint) => bigint;
    const before = livePinnedBuffers();
    let weak!: WeakRef<object>;
    const address = (() => {
      const mem = HostMemory.alloc(64 * MiB);
      weak = new WeakRef(mem.bytes.buffer);
      return mem.address;
    })();
    hostDevicePointer(address); // still pinned: the driver knows it
    assert(livePinnedBuffers() === before + 1, 'the allocation is not counted');
    // Explicit release frees at once and detaches the view.
    const explicit = HostMemory.alloc(4 * MiB);
    const view = explicit.bytes;
    explicit.free();
    assert(view.byteLength === 0 && livePinnedBuffers() === before + 1, 'free() did not release and detach');
    for (let i = 0; i < 50 && livePinnedBuffers() > before; i++) {
      gc();
      await pause(10);
    }
    assert(livePinnedBuffers() === before, `the unreferenced pinned buffer was not released (its memory ${weak.deref() ? 'is still reachable' : 'was collected'})`);
    let refused = '';
    try {
      hostDevicePointer(address);
    } catch (error) {
      refused = (error as { code?: string }).code ?? String(error);
    }
    assert(refused !== '', 'the driver still knows the freed pinned address');
    // Device memory, a stream and an event nobody references: the FinalizationRegistry backstop.
    const tracked = () => liveCudaObjects() - livePinnedBuffers();
    const trackedBefore = tracked();
    (() => {
      DeviceMemory.alloc(64 * MiB);
      CudaStream.create();
      CudaEvent.create();
    })();
    assert(tracked() === trackedBefore + 3, 'device memory, stream and event are not counted');
    for (let i = 0; i < 50 && tracked() > trackedBefore; i++) {
      gc();
      await pause(10);
    }
    assert(tracked() === trackedBefore, `${tracked() - trackedBefore} of device memory, stream and event were not released`);
    return `64 MiB pinned buffer released by its finalizer (the driver now answers ${refused} for its address); unreferenced device memory, stream and event released too`;
  },

  'free() while a read fills pinned memory returns it to the driver only after the read, on both backends': async () => {
    const hostDevicePointer = binding().cuda['hostDevicePointer'] as (address: bigint) => bigint;
    const dir = mkdtempSync(join(tmpdir(), 'orbitkv-pinned-free-'));
    const lines: string[] = [];
    try {
      for (const backend of ['io_uring', 'threadpool'] as IoBackendName[]) {
        // A FIFO keeps the read in flight until we write: free() lands mid-operation.
        const fifo = join(dir, `fifo-${backend}`);
        execFileSync('mkfifo', [fifo]);
        const ring = openRing({ depth: 4, backend });
        const file = openFile(fifo, { write: true, direct: false });
        const writer = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
        const before = livePinnedBuffers();
        const mem = HostMemory.alloc(MiB);
        const view = mem.bytes;
        const read = ring.read(file, view, -1, 4096);
        let unblocked = false;
        const unblock = () => {
          if (!unblocked) writeSync(writer, Buffer.alloc(4096, 7));
          unblocked = true;
        };
        try {
          await new Promise((r) => setImmediate(r));
          assert(ring.stats.inFlight === 1, `${backend}: the read is not in flight`);
          mem.free();
          assert(view.byteLength === 0, `${backend}: free() left a view attached`);
          assert(livePinnedBuffers() === before + 1, `${backend}: free() returned pinned memory a read is still filling`);
          hostDevicePointer(mem.address); // still pinned: the driver knows it
          unblock();
          const bytes = await read;
          assert(bytes > 0, `${backend}: the read moved ${bytes} bytes`);
          for (let i = 0; i < 50 && livePinnedBuffers() > before; i++) await pause(2);
          assert(livePinnedBuffers() === before, `${backend}: the pinned memory was not returned after the read was reaped`);
          let refused = '';
          try {
            hostDevicePointer(mem.address);
          } catch (error) {
            refused = (error as { code?: string }).code ?? String(error);
          }
          assert(refused !== '', `${backend}: the driver still knows the freed address`);
          lines.push(`${backend}: kept while the read ran, returned after it (driver then answers ${refused})`);
        } finally {
          unblock();
          await read.catch(() => 0);
          closeSync(writer);
          await file.close();
          await ring.close();
        }
      }
      // Nothing in flight: free() still returns the memory at once.
      const before = livePinnedBuffers();
      const idle = HostMemory.alloc(MiB);
      idle.free();
      assert(livePinnedBuffers() === before, 'free() with nothing in flight did not return the memory at once');
      return lines.join('; ');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
