/**
 * The knobs every io bench reads (README, `npm run bench:io`): seconds per run, rounds, and the
 * folder their files live in (created here). One place, so the benches agree on names and defaults.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** ORBITKV_BENCH_SECONDS: seconds each run lasts (default 2). */
export const seconds = Number(process.env['ORBITKV_BENCH_SECONDS'] ?? 2);
/** ORBITKV_BENCH_ROUNDS: mirrored rounds (default 3). */
export const rounds = Number(process.env['ORBITKV_BENCH_ROUNDS'] ?? 3);
/** ORBITKV_BENCH_DIR (default .bench-tmp/): where the bench files are laid out. */
export const benchDir = resolve(process.env['ORBITKV_BENCH_DIR'] ?? '.bench-tmp');

/** A bench file's path in benchDir, the folder made if it is not there. */
export function benchFile(name: string): string {
  mkdirSync(benchDir, { recursive: true });
  return join(benchDir, name);
}
