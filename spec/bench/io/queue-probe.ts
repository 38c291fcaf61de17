/**
 * `npx tsx spec/bench/io/queue-probe.ts` (under `flock /work/wt/bench.lock`): where the random
 * 4 KiB rows' time goes. fio and ours (submitRead, depth 64) alternate in mirrored order (A B B A
 * per round, ORBITKV_BENCH_ROUNDS rounds of ORBITKV_BENCH_SECONDS each) on the bench file, and
 * every run prints, beside its IOPS:
 *   - queue: the device's mean requests in flight (/proc/diskstats, weighted ms in queue over
 *     wall ms): below 64 means the submitter left the device short of work;
 *   - lat: the device's mean time per request (queue / IOPS): what the disk itself did;
 *   - busy: the submitting thread's CPU over wall time (fio's usr+sys of its job thread; ours
 *     the main thread's utime+stime from /proc/self/task/<pid>/stat): near 1 means CPU-bound;
 *   - cpu/op: the whole process's CPU per read (as bench:io prints it);
 *   - cpu: which CPU the thread ended on (field 39): the disk's one interrupt line lands on one.
 * The device is named by ORBITKV_BENCH_DEVICE (default: the disk under the bench file).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { allocAligned, openFile, openRing } from '../../../native/index.js';
import { mirroredOrder } from './mirrored-rounds.js';
import { benchFile, rounds, seconds } from './knobs.js';

const path = benchFile('io-bench.bin');
const size = 1 << 30;
const depth = 64;

/** The whole disk under `file` as /proc/diskstats names it (vda for vda1). */
function deviceOf(file: string): string {
  const dev = statSync(file).dev;
  const major = Math.floor(dev / 256);
  for (const line of readFileSync('/proc/diskstats', 'utf8').split('\n')) {
    const f = line.trim().split(/\s+/);
    if (Number(f[0]) === major && Number(f[1]) === 0) return f[2]!;
  }
  throw new Error(`no whole disk with major ${major} in /proc/diskstats`);
}

/** [reads completed, weighted ms in queue] of `device`. */
function diskCounters(device: string): [number, number] {
  for (const line of readFileSync('/proc/diskstats', 'utf8').split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f[2] === device) return [Number(f[3]), Number(f[13])];
  }
  throw new Error(`${device} not in /proc/diskstats`);
}

interface Probe {
  iops: number;
  cpuUsPerOp: number;
  busy: number;
  queue: number;
  latencyUs: number;
  cpu: number;
  switchesPerOp: number;
}

function measured(device: string, run: () => { iops: number; cpuUsPerOp: number; busy: number; cpu: number; switches: number; wallMs: number }): Probe {
  const [r0, q0] = diskCounters(device);
  const r = run();
  const [r1, q1] = diskCounters(device);
  const queue = (q1 - q0) / r.wallMs;
  return { iops: r.iops, cpuUsPerOp: r.cpuUsPerOp, busy: r.busy, queue, latencyUs: ((q1 - q0) * 1000) / (r1 - r0), cpu: r.cpu, switchesPerOp: r.switches / (r.iops * (r.wallMs / 1000)) };
}

function fio(device: string): Probe {
  return measured(device, () => {
    const t0 = performance.now();
    const out = execFileSync('fio', [
      '--name=orbitkv', `--filename=${path}`, '--ioengine=io_uring', '--direct=1', '--rw=randread', '--bs=4k', `--iodepth=${depth}`,
      `--size=${size}`, `--runtime=${seconds}`, '--time_based', '--randrepeat=0', '--norandommap', '--output-format=json',
    ], { encoding: 'utf8', maxBuffer: 64 << 20 });
    const wallMs = performance.now() - t0;
    const job = JSON.parse(out.slice(out.indexOf('{'))).jobs[0];
    const busy = (job.usr_cpu + job.sys_cpu) / 100;
    return { iops: job.read.iops, cpuUsPerOp: (busy / job.read.iops) * 1e6, busy, cpu: -1, switches: job.ctx, wallMs: Math.min(wallMs, job.job_runtime) };
  });
}

/** utime+stime (clock ticks), processor and voluntary+involuntary switches of this main thread. */
function mainThread(): { ticks: number; cpu: number; switches: number } {
  const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const status = readFileSync(`/proc/self/task/${process.pid}/status`, 'utf8');
  const sw = [...status.matchAll(/ctxt_switches:\s+(\d+)/g)].reduce((s, m) => s + Number(m[1]), 0);
  return { ticks: Number(f[11]) + Number(f[12]), cpu: Number(f[36]), switches: sw };
}

execFileSync('fio', ['--name=layout', `--filename=${path}`, '--ioengine=io_uring', '--direct=1', '--rw=write', '--bs=1m', '--iodepth=16', `--size=${size}`, '--output-format=json'], { maxBuffer: 64 << 20 });
const device = process.env['ORBITKV_BENCH_DEVICE'] ?? deviceOf(path);
const offsets = Float64Array.from({ length: 1 << 20 }, () => Math.floor(Math.random() * (size / 4096)) * 4096);
const ring = openRing({ depth, backend: 'io_uring' });
const file = openFile(path);
const slots = Array.from({ length: depth }, () => allocAligned(4096));
const HZ = 100;

async function ours(): Promise<Probe> {
  const [r0, q0] = diskCounters(device);
  const th0 = mainThread();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  const ops = await new Promise<number>((resolveOps, reject) => {
    let count = 0;
    let issued = 0;
    let running = depth;
    let stopped = false;
    const done = Array.from({ length: depth }, (_, slot) => (error: Error | null): void => {
      if (error) return reject(error);
      count++;
      if (!stopped && (count % 64 !== 0 || performance.now() < end)) ring.submitRead(file, slots[slot]!, offsets[issued++ % offsets.length]!, done[slot]!);
      else if (((stopped = true), --running === 0)) resolveOps(count);
    });
    for (let slot = 0; slot < depth; slot++) ring.submitRead(file, slots[slot]!, offsets[issued++ % offsets.length]!, done[slot]!);
  });
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(c0);
  const th1 = mainThread();
  const [r1, q1] = diskCounters(device);
  const iops = ops / (wallMs / 1000);
  return {
    iops,
    cpuUsPerOp: (cpu.user + cpu.system) / ops,
    busy: ((th1.ticks - th0.ticks) * (1000 / HZ)) / wallMs,
    queue: (q1 - q0) / wallMs,
    latencyUs: ((q1 - q0) * 1000) / (r1 - r0),
    cpu: th1.cpu,
    switchesPerOp: (th1.switches - th0.switches) / ops,
  };
}

const show = (name: string, p: Probe) =>
  `${name.padEnd(5)} ${(p.iops / 1e3).toFixed(1).padStart(6)} kIOPS  queue ${p.queue.toFixed(1).padStart(5)}  lat ${p.latencyUs.toFixed(0).padStart(4)} µs  busy ${p.busy.toFixed(2)}  cpu/op ${p.cpuUsPerOp.toFixed(2)} µs  switches/op ${p.switchesPerOp.toFixed(3)}${p.cpu >= 0 ? `  on cpu${p.cpu}` : ''}`;
const before = loadavg();
process.stdout.write(`device ${device}, depth ${depth}, ${seconds} s per run, load ${before.map((l) => l.toFixed(2)).join(' ')}\n`);
await ours(); // warm-up, uncounted
fio(device);
const sums = [0, 0];
for (let round = 0; round < rounds; round++) {
  const sum = [0, 0];
  for (const i of mirroredOrder(2, round)) {
    const p = i === 0 ? fio(device) : await ours();
    sum[i]! += p.iops;
    process.stdout.write(show(i === 0 ? 'fio' : 'ours', p) + '\n');
  }
  sums[0]! += sum[0]!;
  sums[1]! += sum[1]!;
  process.stdout.write(`round ${round + 1}: ours/fio ${(sum[1]! / sum[0]!).toFixed(3)}\n`);
}
process.stdout.write(`all rounds: ours/fio ${(sums[1]! / sums[0]!).toFixed(3)}; load after ${loadavg().map((l) => l.toFixed(2)).join(' ')}\n`);
await ring.close();
await file.close();
rmSync(path, { force: true });
