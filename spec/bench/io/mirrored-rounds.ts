/**
 * The round order of `npm run bench:io`: every runner runs twice per repeat, in mirrored order
 * (A B C … C B A, the first runner rotating each round), and a round holds `repeats` such
 * repeats, every odd one the reverse rotation (A B B A, then B A A B). Each runner's runs sit
 * symmetrically about the middle of the round, so a disk whose rate drifts linearly within a
 * round gives every runner the same mean and the drift drops out of every ratio; a round's
 * rate is the sum of its runs (ratio of sums), so more repeats average more of the disk's
 * run-to-run noise into each round's ratio. A warm-up runs every runner once, uncounted,
 * before the first round.
 *
 * @example
 * const rates = await mirroredRounds([fioRun, ourRun], 3, { repeats: 2, warmup: true }); // rates[i][round]
 */

export interface Rate {
  bytesPerSec: number;
  iops: number;
  /** CPU (user + system) per op. */
  cpuUsPerOp: number;
}

export interface RoundOptions {
  /** Mirrored repeats per round (default 1: A B B A). */
  repeats?: number;
  /** Runs every runner once before the first round, not counted (default false). */
  warmup?: boolean;
  /** Sees every counted run, in the order they ran. */
  onRun?: (runner: number, rate: Rate) => void;
}

/**
 * The order runner indexes run in, in round `round`: per repeat a rotation, then its mirror;
 * odd repeats use the rotation reversed, so consecutive repeats meet at the same runner.
 */
export function mirroredOrder(runners: number, round: number, repeats = 1): number[] {
  if (!Number.isInteger(repeats) || repeats < 1) throw new RangeError(`repeats must be a positive integer, got ${repeats}`);
  const order = Array.from({ length: runners }, (_, k) => (k + round) % runners);
  const reversed = [...order].reverse();
  const out: number[] = [];
  for (let r = 0; r < repeats; r++) out.push(...(r % 2 === 0 ? [...order, ...reversed] : [...reversed, ...order]));
  return out;
}

/**
 * Runs `runners` in mirrored order `rounds` times; each runner's rate per round (its runs
 * combined). `onRun(runner, rate)` (or `options.onRun`) sees every counted run, in order.
 */
export async function mirroredRounds(
  runners: ReadonlyArray<() => Rate | Promise<Rate>>,
  rounds: number,
  options: RoundOptions | ((runner: number, rate: Rate) => void) = {},
): Promise<Rate[][]> {
  const { repeats = 1, warmup = false, onRun } = typeof options === 'function' ? { onRun: options } : options;
  const rates: Rate[][] = runners.map(() => []);
  if (warmup) for (const run of runners) await run();
  for (let round = 0; round < rounds; round++) {
    const runs: Rate[][] = runners.map(() => []);
    for (const i of mirroredOrder(runners.length, round, repeats)) {
      const rate = await runners[i]!();
      onRun?.(i, rate);
      runs[i]!.push(rate);
    }
    runs.forEach((pair, i) => rates[i]!.push(combined(pair)));
  }
  return rates;
}

/** Runs of equal length as one: rates averaged (ops over time), CPU per op weighted by ops. */
export function combined(runs: readonly Rate[]): Rate {
  const iops = runs.reduce((s, r) => s + r.iops, 0);
  return {
    bytesPerSec: runs.reduce((s, r) => s + r.bytesPerSec, 0) / runs.length,
    iops: iops / runs.length,
    cpuUsPerOp: iops === 0 ? 0 : runs.reduce((s, r) => s + r.cpuUsPerOp * r.iops, 0) / iops,
  };
}
