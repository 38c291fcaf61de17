/**
 * What the sequential-write row of the io bench (`io.bench.ts`) compares, taken apart: on a host
 * whose 3.35 GB/s disk gave ours 0.87-0.93 of fio there, does the data written, or the memory it
 * is written from, move the rate? fio writes random bytes from a buffer its new process has just
 * allocated; io.bench's ours wrote 0x5a from 16 buffers of 1 MiB allocated once, first thing.
 * Runs, in the same mirrored rounds (same file, O_DIRECT, 1 MiB at depth 16, io_uring without
 * fixed buffers or SQ polling):
 *   fio (random data, as io.bench), fio with --buffer_pattern=0x5a (ours' data), fio from a
 *   hugetlbfs buffer (huge-pages.ts; left out, and said, where none can be had);
 *   ours from 16 buffers of 1 MiB allocated first (as io.bench did), 0x5a;
 *   ours from 16 such buffers allocated after those, 0x5a; the same, filled with random bytes;
 *   ours from 16 MiB-slices of one 16 MiB allocAligned mapping (2 MiB aligned, advised to huge
 *   pages: the DRAM arena's kind of memory, which the Manager writes its blocks from), 0x5a.
 * If the data moves the disk, both fio rows split and so do the two later-allocated rows of ours;
 * if the memory does, ours' rows split by where their buffers are. On the dev VM the first 16 MiB
 * of 1 MiB buffers a process allocated wrote at 2.3-2.7 GB/s and those allocated after them at
 * 3.9-4.4, whatever their bytes (an experiment: /tmp scripts, not kept; this bench keeps the
 * comparison). Knobs as io.bench (ORBITKV_BENCH_SECONDS, ORBITKV_BENCH_ROUNDS, ORBITKV_BENCH_DIR,
 * ORBITKV_BENCH_SIZE) and ORBITKV_BENCH_SEQ_REPEATS (default 2). Run: `npx tsx spec/bench/io/seq-write-ab.ts`.
 */
import { randomFillSync } from 'node:crypto';
import { rmSync } from 'node:fs';
import { allocAligned, openFile, openRing, type DirectFile, type IoRing } from '../../../native/index.js';
import { mirroredRounds, type Rate } from './mirrored-rounds.js';
import { benchFile, rounds, seconds } from './knobs.js';
import { drive, fio as runFio } from './runners.js';
import { fioHugePages } from './huge-pages.js';

const MiB = 1024 * 1024;
const size = Number(process.env['ORBITKV_BENCH_SIZE'] ?? 1024 * MiB);
const REPEATS = Number(process.env['ORBITKV_BENCH_SEQ_REPEATS'] ?? 2);
const path = benchFile('seq-write-ab.bin');

const fio = (extra: string[]): Rate => runFio(path, size, 'write', '1m', 16, extra);

/** 16 writes of 1 MiB in flight, sequential over the file (as io.bench's `sequential`). */
function ours(ring: IoRing, file: DirectFile, buffers: Buffer[]): Promise<Rate> {
  const blocks = size / MiB;
  return drive(buffers.length, (slot, n) => ring.write(file, buffers[slot]!, (n % blocks) * MiB));
}

async function main(): Promise<void> {
  const ring = openRing({ depth: 64, backend: 'io_uring' });
  fio([]); // lays the file out
  const file = openFile(path, { write: true });
  const oneMiB = (fill: (b: Buffer) => Buffer) => Array.from({ length: 16 }, () => fill(allocAligned(MiB)));
  const first = oneMiB((b) => b.fill(0x5a));
  const after = oneMiB((b) => b.fill(0x5a));
  const afterRandom = oneMiB((b) => randomFillSync(b));
  const arena = allocAligned(16 * MiB).fill(0x5a);
  const slices = Array.from({ length: 16 }, (_, i) => arena.subarray(i * MiB, (i + 1) * MiB));
  const huge = fioHugePages();
  const names = ['fio random', 'fio 0x5a', 'ours first-allocated 1 MiB buffers', 'ours later 1 MiB buffers', 'ours later 1 MiB buffers, random', 'ours slices of a 16 MiB mapping', ...(huge.arg ? ['fio hugetlbfs buffer'] : [])];
  const runs: string[] = [];
  const gbs = (r: Rate) => r.bytesPerSec / 1e9;
  let rates: Rate[][];
  try {
    rates = await mirroredRounds(
      [() => fio([]), () => fio(['--buffer_pattern=0x5a']), () => ours(ring, file, first), () => ours(ring, file, after), () => ours(ring, file, afterRandom), () => ours(ring, file, slices), ...(huge.arg ? [() => fio([huge.arg!])] : [])],
      rounds,
      { repeats: REPEATS, warmup: true, onRun: (i, r) => void runs.push(`${names[i]} ${gbs(r).toFixed(2)}`) },
    );
  } finally {
    huge.release();
  }
  await ring.close();
  await file.close();
  rmSync(path, { force: true });
  const mean = (xs: Rate[]) => xs.reduce((s, r) => s + gbs(r), 0) / xs.length;
  process.stdout.write(`${huge.note}\n`);
  process.stdout.write(`sequential 1 MiB write, depth 16, ${seconds} s runs, ${rounds} mirrored rounds of ${REPEATS} repeats (after a warm-up), GB/s\n`);
  names.forEach((n, i) => process.stdout.write(`${n.padEnd(36)} mean ${mean(rates[i]!).toFixed(3)} over ${rates[i]!.length} runs; per round vs fio random: ${rates[i]!.map((r, k) => (r.iops / rates[0]![k]!.iops).toFixed(3)).join(' ')}\n`));
  process.stdout.write(`runs in order: ${runs.join(', ')}\n`);
}

await main();
