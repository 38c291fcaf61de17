/**
 * Everything the native CUDA layer must prove on a real GPU, in one process: byte-exact pinned
 * copies into poisoned destinations (plain, coalesced, gathered), reading a PyTorch tensor
 * through its CUDA IPC handle, a captured graph whose wait-value node honours a flag written
 * after launch, a VMM fd import, then copy bandwidth from 64 KiB to 1 GiB and scattered 64 KiB
 * blocks. Run by spec/gpu/gpu_run.py (which owns the PyTorch side); prints one JSON document.
 *
 *   node gpu-checks.mjs [--ipc ipc.json]
 */
import { createHash, randomFillSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { asyncChecks } from './async-checks.js';
import {
  CudaEvent,
  CudaStream,
  DeviceMemory,
  Gatherer,
  HostMemory,
  WAIT_VALUE,
  cuda,
  exportVmm,
  type CopyRun,
} from '../../native/index.js';

const { values } = parseArgs({ options: { ipc: { type: 'string' }, quick: { type: 'boolean' } } });
const KiB = 1024;
const MiB = 1024 * KiB;
const GiB = 1024 * MiB;
const report: { checks: Record<string, { ok: boolean; detail: string }>; copies: unknown[]; scattered: unknown[]; device?: unknown; driverVersion?: number } = { checks: {}, copies: [], scattered: [] };

function check(name: string, body: () => string): void {
  try {
    report.checks[name] = { ok: true, detail: body() };
  } catch (error) {
    report.checks[name] = { ok: false, detail: (error as Error).stack ?? String(error) };
  }
}
function assert(cond: unknown, message: string): asserts cond {
  if (!cond) throw new Error(message);
}
const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
function waitIdle(stream: CudaStream, ms: number): boolean {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (stream.idle) return true;
    sleep(1);
  }
  return stream.idle;
}

if (!cuda.available) {
  process.stdout.write(JSON.stringify({ error: `CUDA unavailable: ${cuda.reason}` }));
  process.exit(1);
}
cuda.useDevice(0);
report.driverVersion = cuda.driverVersion();
report.device = cuda.device(0);

const ARENA = values.quick ? 64 * MiB : GiB;
const host = HostMemory.alloc(ARENA);
const back = HostMemory.alloc(ARENA);
const dev = DeviceMemory.alloc(ARENA);
const dev2 = DeviceMemory.alloc(256 * MiB);
const stream = CudaStream.create();
const other = CudaStream.create();
randomFillSync(host.bytes.subarray(0, 256 * MiB));

check('pinned copies are byte-exact into poisoned destinations', () => {
  const sizes = [1, 4095, 64 * KiB, 1 * MiB + 17, 64 * MiB];
  for (const size of sizes) {
    stream.memset(dev, 0xab, size + 4096);
    back.bytes.fill(0xcd, 0, size + 4096);
    stream.copyHostToDevice(dev, host, [{ dst: 0, src: 0, len: size }]);
    stream.copyDeviceToHost(back, dev, [{ dst: 0, src: 0, len: size + 4096 }]);
    stream.synchronize();
    assert(back.bytes.subarray(0, size).equals(host.bytes.subarray(0, size)), `bytes differ at size ${size}`);
    assert(back.bytes.subarray(size, size + 4096).every((b) => b === 0xab), `poison overwritten past ${size}`);
  }
  // Device to device, into a poisoned destination.
  stream.memset(dev2, 0x5c, 8 * MiB);
  stream.copyDeviceToDevice(dev2, dev, [{ dst: 4096, src: 0, len: 4 * MiB }]);
  back.bytes.fill(0, 0, 8 * MiB);
  stream.copyDeviceToHost(back, dev2, [{ dst: 0, src: 0, len: 8 * MiB }]);
  stream.synchronize();
  assert(back.bytes.subarray(0, 4096).every((b) => b === 0x5c), 'd2d wrote before its run');
  assert(back.bytes.subarray(4096, 4096 + 4 * MiB).equals(host.bytes.subarray(0, 4 * MiB)), 'd2d bytes differ');
  return `sizes ${sizes.join(', ')} and d2d 4 MiB`;
});

check('scattered runs are coalesced and land byte-exact', () => {
  const block = 16 * KiB;
  const runs: CopyRun[] = [];
  for (let i = 0; i < 512; i++) runs.push({ src: i * block, dst: (i < 256 ? i : 1024 + ((i * 7) % 256) * 2) * block, len: block });
  stream.memset(dev, 0xee, 64 * MiB);
  const copies = stream.copyHostToDevice(dev, host, runs);
  back.bytes.fill(0, 0, 64 * MiB);
  stream.copyDeviceToHost(back, dev, [{ dst: 0, src: 0, len: 64 * MiB }]);
  stream.synchronize();
  for (const r of runs) assert(back.bytes.subarray(r.dst, r.dst + r.len).equals(host.bytes.subarray(r.src, r.src + r.len)), `run ${r.src}->${r.dst}`);
  assert(back.bytes.subarray(4096 * block - 4096, 4096 * block).every((b) => b === 0xee), 'poison overwritten');
  assert(copies === 257, `expected 257 copies after coalescing, got ${copies}`);
  return `512 runs in ${copies} copies`;
});

const gatherer = Gatherer.create(16384);
const hostDev = host.deviceAddress;
check('the gather kernel moves scattered blocks byte-exact', () => {
  const block = 64 * KiB;
  const n = 1024;
  const order = shuffle(Array.from({ length: n }, (_, i) => i));
  stream.memset(dev, 0x77, n * block * 2);
  gatherer.enqueue(stream, order.map((s, i) => ({ src: hostDev + BigInt(s * block), dst: dev.address + BigInt(i * 2 * block), len: block })));
  back.bytes.fill(0, 0, n * block * 2);
  stream.copyDeviceToHost(back, dev, [{ dst: 0, src: 0, len: n * block * 2 }]);
  stream.synchronize();
  order.forEach((s, i) => {
    assert(back.bytes.subarray(i * 2 * block, i * 2 * block + block).equals(host.bytes.subarray(s * block, s * block + block)), `block ${i}`);
    assert(back.bytes.subarray(i * 2 * block + block, (i + 1) * 2 * block).every((b) => b === 0x77), `gap ${i} overwritten`);
  });
  return `${n} blocks of 64 KiB`;
});

check('a PyTorch tensor opened through its CUDA IPC handle reads back exactly', () => {
  if (!values.ipc) throw new Error('no --ipc file (run through gpu_run.py)');
  const ipc = JSON.parse(readFileSync(values.ipc, 'utf8')) as { handle: string; offset: number; size: number; sha256: string };
  const mem = DeviceMemory.openIpc(Buffer.from(ipc.handle, 'hex'), ipc.offset, ipc.size);
  back.bytes.fill(0, 0, ipc.size);
  const s = CudaStream.create();
  s.copyDeviceToHost(back, mem, [{ dst: 0, src: 0, len: ipc.size }]);
  s.synchronize();
  s.destroy();
  const digest = createHash('sha256').update(back.bytes.subarray(0, ipc.size)).digest('hex');
  mem.free();
  assert(digest === ipc.sha256, `sha256 ${digest} != ${ipc.sha256}`);
  return `${ipc.size} bytes at offset ${ipc.offset}, sha256 matches`;
});

check('a captured graph with a wait-value node honours a flag written after launch', () => {
  const flag = HostMemory.alloc(4096);
  const flagAddr = flag.deviceAddress;
  const size = 4 * MiB;
  const src = DeviceMemory.alloc(size);
  const dst = DeviceMemory.alloc(size);
  stream.memset(src, 0x11, size);
  stream.synchronize();
  const graph = stream.capture((s) => {
    s.waitValue32(flagAddr, 1, WAIT_VALUE.geq);
    s.copyDeviceToDevice(dst, src, [{ dst: 0, src: 0, len: size }]);
  });
  const readDst = (): Buffer => {
    other.copyDeviceToHost(back, dst, [{ dst: 0, src: 0, len: size }]);
    other.synchronize();
    return back.bytes.subarray(0, size);
  };
  const details: string[] = [];
  // 1: the host writes the flag after launch.
  flag.bytes.writeUInt32LE(0, 0);
  stream.memset(dst, 0, size);
  stream.synchronize();
  graph.launch(stream);
  sleep(100);
  assert(!stream.idle, 'graph finished before the flag was written');
  assert(readDst().every((b) => b === 0), 'copy ran before the flag was written');
  flag.bytes.writeUInt32LE(1, 0);
  assert(waitIdle(stream, 5000), 'graph did not finish within 5 s of the host writing the flag');
  assert(readDst().every((b) => b === 0x11), 'copy did not land after the flag');
  details.push('host write after launch: honoured');
  // 2: another stream writes the flag (cuStreamWriteValue32) after launch.
  flag.bytes.writeUInt32LE(0, 0);
  stream.memset(dst, 0, size);
  stream.synchronize();
  graph.launch(stream);
  sleep(50);
  assert(!stream.idle, 'second launch did not wait');
  other.writeValue32(flagAddr, 1);
  assert(waitIdle(stream, 5000), 'graph did not finish after the stream wrote the flag');
  assert(readDst().every((b) => b === 0x11), 'copy did not land after the stream write');
  details.push('stream write after launch: honoured');
  graph.destroy();
  src.free();
  dst.free();
  flag.free();
  return details.join('; ');
});

check('a VMM allocation imported from a shareable fd reads and writes', () => {
  const exported = exportVmm(2 * MiB);
  const mem = DeviceMemory.importVmm(exported.fd, exported.size);
  stream.copyHostToDevice(mem, host, [{ dst: 0, src: 0, len: exported.size }]);
  back.bytes.fill(0, 0, exported.size);
  stream.copyDeviceToHost(back, mem, [{ dst: 0, src: 0, len: exported.size }]);
  stream.synchronize();
  assert(back.bytes.subarray(0, exported.size).equals(host.bytes.subarray(0, exported.size)), 'bytes differ');
  mem.free();
  exported.release();
  return `${exported.size} bytes through fd`;
});

check('registering existing memory as pinned in chunks works', () => {
  const plain = Buffer.alloc(64 * MiB);
  const t0 = performance.now();
  const pinned = HostMemory.register(plain, 16 * MiB);
  const ms = performance.now() - t0;
  plain.fill(0x42);
  stream.copyHostToDevice(dev2, pinned, [{ dst: 0, src: 0, len: 64 * MiB }]);
  stream.synchronize();
  pinned.free();
  return `64 MiB in 16 MiB chunks registered in ${ms.toFixed(1)} ms`;
});

// Bandwidth: events around `iters` copies of one size on one stream.
function bandwidth(kind: 'h2d' | 'd2h', size: number): { gbps: number; iters: number } {
  const iters = Math.max(3, Math.min(200, Math.round((256 * MiB) / size)));
  const start = CudaEvent.create();
  const end = CudaEvent.create();
  const run = () => (kind === 'h2d' ? stream.copyHostToDevice(dev, host, [{ dst: 0, src: 0, len: size }]) : stream.copyDeviceToHost(back, dev, [{ dst: 0, src: 0, len: size }]));
  run();
  stream.synchronize();
  let best = 0;
  for (let rep = 0; rep < 3; rep++) {
    start.record(stream);
    for (let i = 0; i < iters; i++) run();
    end.record(stream);
    end.synchronize();
    best = Math.max(best, (size * iters) / (CudaEvent.elapsedMs(start, end) * 1e6));
  }
  start.destroy();
  end.destroy();
  return { gbps: best, iters };
}

const sizes = [64 * KiB, 256 * KiB, 1 * MiB, 4 * MiB, 16 * MiB, 64 * MiB, 256 * MiB, GiB].filter((s) => s <= ARENA);
for (const size of sizes) for (const kind of ['h2d', 'd2h'] as const) report.copies.push({ kind, size, ...bandwidth(kind, size) });

// Scattered 64 KiB blocks, host arena -> device arena, both in random order. The run list is
// built before timing (a restore plan has it ready); enqueueing and copying are timed.
function scattered(method: 'gather' | 'memcpy-per-block', blocks: number, threads = 256): number {
  const block = 64 * KiB;
  const slots = ARENA / block;
  const src = shuffle(Array.from({ length: slots }, (_, i) => i)).slice(0, blocks);
  const dst = shuffle(Array.from({ length: slots }, (_, i) => i)).slice(0, blocks);
  const packed = new Float64Array(blocks * 3);
  src.forEach((s, i) => packed.set([Number(hostDev) + s * block, Number(dev.address) + dst[i]! * block, block], i * 3));
  const runs = src.map((s, i) => ({ src: s * block, dst: dst[i]! * block, len: block }));
  const start = CudaEvent.create();
  const end = CudaEvent.create();
  let best = 0;
  for (let rep = 0; rep < 5; rep++) {
    start.record(stream);
    if (method === 'gather') gatherer.enqueuePacked(stream, packed, blocks, threads);
    else stream.copyHostToDevice(dev, host, runs);
    end.record(stream);
    end.synchronize();
    if (rep > 0) best = Math.max(best, (blocks * block) / (CudaEvent.elapsedMs(start, end) * 1e6));
  }
  start.destroy();
  end.destroy();
  return best;
}
for (const blocks of [256, 4096]) {
  const sweep = Object.fromEntries([128, 256, 512, 1024].map((t) => [t, scattered('gather', blocks, t)]));
  report.scattered.push({ blocks, blockBytes: 64 * KiB, gatherGBps: sweep['1024'], gatherByThreads: sweep, memcpyPerBlockGBps: scattered('memcpy-per-block', blocks) });
}

for (const [name, body] of Object.entries(asyncChecks)) {
  try {
    const detail = await body({ host, back, dev, stream, gatherer, arena: ARENA, peerScript: join(dirname(fileURLToPath(import.meta.url)), 'vmm-peer.mjs') });
    report.checks[name] = { ok: true, detail };
  } catch (error) {
    report.checks[name] = { ok: false, detail: (error as Error).stack ?? String(error) };
  }
}

gatherer.destroy();
process.stdout.write(JSON.stringify(report));

function shuffle<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}
