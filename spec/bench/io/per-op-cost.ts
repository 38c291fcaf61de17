/**
 * `npx tsx spec/bench/io/per-op-cost.ts`: the CPU one 4 KiB read costs this process (user +
 * system, from process.cpuUsage) with 64 in flight, on a file in the page cache, where the
 * device costs nothing and every microsecond is ours: ring.read (a promise per read) and
 * ring.submitRead (a callback per read), ORBITKV_BENCH_ROUNDS rounds (3) of
 * ORBITKV_BENCH_SECONDS (2). Prints µs/op (and its user-space part) and IOPS per round and the
 * load average.
 * ORBITKV_NATIVE_INDEX names another checkout's native/index.ts, to compare builds in one run.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { benchFile, rounds, seconds } from './knobs.js';

type Native = typeof import('../../../native/index.js');
const native = (await import(process.env['ORBITKV_NATIVE_INDEX'] ? pathToFileURL(resolve(process.env['ORBITKV_NATIVE_INDEX'])).href : '../../../native/index.js')) as Native;
const path = benchFile('per-op-cost.bin');
const size = 64 << 20;
writeFileSync(path, randomBytes(size));
const file = native.openFile(path, { direct: false });
const ring = native.openRing({ depth: 64, backend: 'io_uring' });
const buffers = Array.from({ length: 64 }, () => native.allocAligned(4096));
const offsets = Float64Array.from({ length: 1 << 20 }, () => Math.floor(Math.random() * (size / 4096)) * 4096);

/**
 * Keeps 64 reads in flight for `seconds`; `start(slot, n, done)` issues read n. Each slot's
 * `done` is made once, so the harness itself allocates nothing per read.
 */
function measure(start: (slot: number, n: number, done: () => void) => void): Promise<{ iops: number; usPerOp: number; userUs: number }> {
  let ops = 0;
  let issued = 0;
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  return new Promise((resolve) => {
    let running = 64;
    let stopped = false;
    const next = (slot: number): void => start(slot, issued++, slotDone[slot]!);
    const slotDone = Array.from({ length: 64 }, (_, slot) => () => {
      ops++;
      if (!stopped && (ops % 64 !== 0 || performance.now() < t0 + seconds * 1000)) next(slot);
      else if (((stopped = true), --running === 0)) {
        const cpu = process.cpuUsage(c0);
        resolve({ iops: ops / ((performance.now() - t0) / 1000), usPerOp: (cpu.user + cpu.system) / ops, userUs: cpu.user / ops });
      }
    });
    for (let slot = 0; slot < 64; slot++) next(slot);
  });
}

const viaPromise = () => measure((slot, n, done) => void ring.read(file, buffers[slot]!, offsets[n % offsets.length]!).then(done));
const viaCallback = () =>
  measure((slot, n, done) => {
    if (typeof ring.submitRead !== 'function') throw new Error('this build has no submitRead');
    ring.submitRead(file, buffers[slot]!, offsets[n % offsets.length]!, done);
  });
const before = loadavg();
for (let r = 0; r < rounds; r++) {
  const p = await viaPromise();
  const c = typeof ring.submitRead === 'function' ? await viaCallback() : null;
  process.stdout.write(`round ${r + 1}: read ${p.usPerOp.toFixed(2)} µs/op (user ${p.userUs.toFixed(2)}) ${(p.iops / 1e3).toFixed(1)} kIOPS` + (c ? `; submitRead ${c.usPerOp.toFixed(2)} µs/op (user ${c.userUs.toFixed(2)}) ${(c.iops / 1e3).toFixed(1)} kIOPS` : '') + '\n');
}
process.stdout.write(`load average before ${before.map((l) => l.toFixed(2)).join(' ')}, after ${loadavg().map((l) => l.toFixed(2)).join(' ')}\n`);
await ring.close();
await file.close();
rmSync(path, { force: true });
