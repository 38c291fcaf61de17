/**
 * The round order of `npm run bench:io`: every runner runs twice per round, in mirrored order
 * (A B C … C B A, the first runner rotating each round). Each runner's two runs sit
 * symmetrically about the middle of the round, so a disk whose rate drifts linearly within a
 * round gives every runner the same mean and the drift drops out of every ratio; a round's
 * rate is the sum of its two runs (ratio of sums).
 *
 * @example
 * const rates = await mirroredRounds([fioRun, ourRun], 3); // rates[i][round]
 */

export interface Rate {
  bytesPerSec: number;
  iops: number;
  /** CPU (user + system) per op. */
  cpuUsPerOp: number;
}

/** The order runner indexes run in, in round `round`: a rotation, then its mirror. */
export function mirroredOrder(runners: number, round: number): number[] {
  const order = Array.from({ length: runners }, (_, k) => (k + round) % runners);
  return [...order, ...[...order].reverse()];
}

/**
 * Runs `runners` in mirrored order `rounds` times; each runner's rate per round (its two runs
 * combined). `onRun(runner, rate)` sees every single run, in the order they ran.
 */
export async function mirroredRounds(runners: ReadonlyArray<() => Rate | Promise<Rate>>, rounds: number, onRun?: (runner: number, rate: Rate) => void): Promise<Rate[][]> {
  const rates: Rate[][] = runners.map(() => []);
  for (let round = 0; round < rounds; round++) {
    const runs: Rate[][] = runners.map(() => []);
    for (const i of mirroredOrder(runners.length, round)) {
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
