/**
 * `ORBITKV_NATIVE_INDEX=<other checkout>/native/index.ts npx tsx spec/bench/io/ring-ab.ts`
 * (under `flock /work/wt/bench.lock`): this checkout's ring against another build of it (a
 * different ring setup, say) and fio, in the same process and the same mirrored rounds: random
 * 4 KiB O_DIRECT reads at depth 64 through submitRead, ORBITKV_BENCH_ROUNDS (3) rounds of
 * ORBITKV_BENCH_SECONDS (2) per run. Prints each build's per-round ratio to fio and to the other,
 * CPU per read, every run in order and the load average. The file is ORBITKV_BENCH_DIR's
 * (default .bench-tmp/) io-bench.bin, 1 GiB, laid out by fio and removed afterwards.
 */
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { mirroredRounds, type Rate } from './mirrored-rounds.js';
import { benchFile, rounds, seconds } from './knobs.js';

type Native = typeof import('../../../native/index.js');
const other = process.env['ORBITKV_NATIVE_INDEX'];
if (!other) throw new Error('ORBITKV_NATIVE_INDEX must name the other build: <checkout>/native/index.ts');
const here = (await import('../../../native/index.js')) as Native;
const there = (await import(pathToFileURL(resolve(other)).href)) as Native;
const path = benchFile('io-bench.bin');
const size = 1 << 30;

function fio(rw: 'write' | 'randread', bs: string, depth: number): Rate {
  const out = execFileSync('fio', [
    '--name=orbitkv', `--filename=${path}`, '--ioengine=io_uring', '--direct=1', `--rw=${rw}`, `--bs=${bs}`, `--iodepth=${depth}`,
    `--size=${size}`, `--runtime=${seconds}`, '--time_based', '--randrepeat=0', '--norandommap', '--output-format=json',
  ], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const job = JSON.parse(out.slice(out.indexOf('{'))).jobs[0];
  const side = rw === 'write' ? job.write : job.read;
  return { bytesPerSec: side.bw_bytes, iops: side.iops, cpuUsPerOp: ((job.usr_cpu + job.sys_cpu) / 100 / side.iops) * 1e6 };
}

fio('write', '1m', 16); // lays the file out
const offsets = Float64Array.from({ length: 1 << 20 }, () => Math.floor(Math.random() * (size / 4096)) * 4096);

/** A ring of one build with 64 slots; `run()` keeps 64 reads in flight for `seconds`. */
function reader(native: Native): { run: () => Promise<Rate>; close: () => Promise<void> } {
  const ring = native.openRing({ depth: 64, backend: 'io_uring' });
  const file = native.openFile(path);
  const slots = Array.from({ length: 64 }, () => native.allocAligned(4096));
  const run = (): Promise<Rate> =>
    new Promise((resolveRate, reject) => {
      let ops = 0;
      let issued = 0;
      let running = 64;
      let stopped = false;
      const t0 = performance.now();
      const c0 = process.cpuUsage();
      const end = t0 + seconds * 1000;
      const done = Array.from({ length: 64 }, (_, slot) => (error: Error | null): void => {
        if (error) return reject(error);
        ops++;
        if (!stopped && (ops % 64 !== 0 || performance.now() < end)) ring.submitRead(file, slots[slot]!, offsets[issued++ % offsets.length]!, done[slot]!);
        else if (((stopped = true), --running === 0)) {
          const secs = (performance.now() - t0) / 1000;
          const cpu = process.cpuUsage(c0);
          resolveRate({ bytesPerSec: (ops * 4096) / secs, iops: ops / secs, cpuUsPerOp: (cpu.user + cpu.system) / ops });
        }
      });
      for (let slot = 0; slot < 64; slot++) ring.submitRead(file, slots[slot]!, offsets[issued++ % offsets.length]!, done[slot]!);
    });
  return { run, close: async () => void (await ring.close(), await file.close()) };
}

const ours = reader(here);
const theirs = reader(there);
const before = loadavg();
const names = ['fio', 'this build', 'other build'];
const runs: string[] = [];
const rates = await mirroredRounds([() => fio('randread', '4k', 64), ours.run, theirs.run], rounds, (i, r) => void runs.push(`${names[i]} ${(r.iops / 1e3).toFixed(1)}`));
const ratios = (a: number, b: number) => rates[a]!.map((r, k) => (r.iops / rates[b]![k]!.iops).toFixed(3)).join(', ');
const cpu = (i: number) => rates[i]!.map((r) => r.cpuUsPerOp.toFixed(2)).join(' ');
process.stdout.write(
  `this build vs fio per round: ${ratios(1, 0)}; CPU µs per read ${cpu(1)}\n` +
    `other build (${other}) vs fio per round: ${ratios(2, 0)}; CPU µs per read ${cpu(2)}\n` +
    `other build vs this build per round: ${ratios(2, 1)}; fio's CPU µs per read ${cpu(0)}\n` +
    `runs in order, kIOPS: ${runs.join(', ')}\n` +
    `load average before ${before.map((l) => l.toFixed(2)).join(' ')}, after ${loadavg().map((l) => l.toFixed(2)).join(' ')}\n`,
);
await ours.close();
await theirs.close();
rmSync(path, { force: true });
