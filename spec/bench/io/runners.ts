/**
 * The runners the io benches share: one fio job, and ours kept at a depth for a while. One place,
 * so `io.bench.ts` and `seq-write-ab.ts` measure fio and ours the same way.
 */
import { execFileSync } from 'node:child_process';
import type { Rate } from './mirrored-rounds.js';
import { seconds } from './knobs.js';

/**
 * fio with the io_uring engine, O_DIRECT, time-based, for `seconds` on `path` (its first `size`
 * bytes); returns the job's read or write rate. Plain io_uring as ours uses it: no --fixedbufs,
 * --registerfiles, --sqthread_poll or --hipri (fio's defaults), so both sides do the same work per
 * op. `extra`: more fio arguments (a data pattern, huge-page memory).
 */
export function fio(path: string, size: number, rw: 'read' | 'write' | 'randread', bs: string, depth: number, extra: readonly string[] = []): Rate {
  const out = execFileSync('fio', [
    '--name=orbitkv', `--filename=${path}`, '--ioengine=io_uring', '--direct=1', `--rw=${rw}`, `--bs=${bs}`,
    `--iodepth=${depth}`, `--size=${size}`, `--runtime=${seconds}`, '--time_based', '--randrepeat=0', '--norandommap',
    '--output-format=json', ...extra,
  ], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const job = JSON.parse(out.slice(out.indexOf('{'))).jobs[0];
  const side = rw === 'write' ? job.write : job.read;
  // usr_cpu and sys_cpu are percent of the job's run time.
  return { bytesPerSec: side.bw_bytes, iops: side.iops, cpuUsPerOp: ((job.usr_cpu + job.sys_cpu) / 100 / side.iops) * 1e6 };
}

/**
 * Keeps `depth` ops in flight for `seconds`; `issue(slot, n)` starts op number n on a slot.
 * Plain promise callbacks rather than async loops, made once per slot, so the harness costs
 * little per op and allocates nothing of its own per op.
 */
export function drive(depth: number, issue: (slot: number, n: number) => Promise<number>): Promise<Rate> {
  return driveCallbacks(depth, (slot, n, done) => {
    issue(slot, n).then((moved) => done(null, moved), (error: Error) => done(error, 0));
  });
}

/** drive(), for an API that reports to a callback: `issue(slot, n, done)` starts op n; each slot's `done` is made once. */
export function driveCallbacks(depth: number, issue: (slot: number, n: number, done: (error: Error | null, moved: number) => void) => void): Promise<Rate> {
  let ops = 0;
  let bytes = 0;
  let issued = 0;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const end = t0 + seconds * 1000;
  return new Promise((resolve, reject) => {
    let running = depth;
    let stopped = false;
    const next = (slot: number): void => issue(slot, issued++, slotDone[slot]!);
    const slotDone = Array.from({ length: depth }, (_, slot) => (error: Error | null, moved: number): void => {
      if (error) return reject(error);
      bytes += moved;
      ops++;
      // Read the clock every 64 completions only; once past the end, every slot stops.
      if (!stopped && (ops % 64 !== 0 || performance.now() < end)) next(slot);
      else if (((stopped = true), --running === 0)) {
        const secs = (performance.now() - t0) / 1000;
        const cpu = process.cpuUsage(cpu0);
        resolve({ bytesPerSec: bytes / secs, iops: ops / secs, cpuUsPerOp: (cpu.user + cpu.system) / ops });
      }
    });
    for (let slot = 0; slot < depth; slot++) next(slot);
  });
}
