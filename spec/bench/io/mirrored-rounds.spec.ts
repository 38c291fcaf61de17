/**
 * The bench's mirrored (ABBA) round order: each runner twice per round, symmetric about the
 * round's middle, so a disk whose rate drifts linearly within a round leaves the ratio of two
 * identical runners at exactly 1; a round's rate is the two runs' sum.
 */
import assert from 'node:assert/strict';
import { seeded } from '../../support/seeded.js';
import { combined, mirroredOrder, mirroredRounds, type Rate } from './mirrored-rounds.js';

describe('bench io: mirrored rounds', () => {
  it('runs every runner twice per round, mirrored, the first runner rotating', () => {
    assert.deepEqual(mirroredOrder(2, 0), [0, 1, 1, 0]);
    assert.deepEqual(mirroredOrder(2, 1), [1, 0, 0, 1]);
    assert.deepEqual(mirroredOrder(3, 1), [1, 2, 0, 0, 2, 1]);
  });

  it('cancels a linear drift of the disk within a round: identical runners compare at 1', async () => {
    // A virtual disk that loses 5 % of its starting rate with every run.
    let position = 0;
    const disk = (): Rate => {
      const iops = 1000 * (1 - 0.05 * position++);
      return { bytesPerSec: iops * 4096, iops, cpuUsPerOp: 5 };
    };
    const rounds = 3;
    const seen: number[] = [];
    const rates = await mirroredRounds([disk, disk, disk], rounds, (runner) => void seen.push(runner));
    assert.deepEqual(seen, [0, 1, 2].flatMap((round) => mirroredOrder(3, round)));
    for (let round = 0; round < rounds; round++) {
      for (const i of [1, 2]) assert.ok(Math.abs(rates[i]![round]!.iops / rates[0]![round]!.iops - 1) < 1e-12, `runner ${i}, round ${round}`);
    }
    assert.equal(position, rounds * 6);
  });

  it('combines two runs as the ratio of sums, CPU per op weighted by ops', () => {
    const r = combined([
      { bytesPerSec: 100, iops: 10, cpuUsPerOp: 2 },
      { bytesPerSec: 300, iops: 30, cpuUsPerOp: 6 },
    ]);
    assert.deepEqual(r, { bytesPerSec: 200, iops: 20, cpuUsPerOp: 5 });
  });

  it('repeats the mirror within a round, odd repeats reversed, and refuses a repeat count below 1', () => {
    assert.deepEqual(mirroredOrder(2, 0, 2), [0, 1, 1, 0, 1, 0, 0, 1]);
    assert.deepEqual(mirroredOrder(3, 2, 2), [2, 0, 1, 1, 0, 2, 1, 0, 2, 2, 0, 1]);
    assert.deepEqual(mirroredOrder(2, 1, 1), mirroredOrder(2, 1));
    assert.throws(() => mirroredOrder(2, 0, 0), RangeError);
    assert.throws(() => mirroredOrder(2, 0, 1.5), RangeError);
  });

  it('cancels a linear drift with repeats too, and runs the warm-up uncounted before round 1', async () => {
    let position = 0;
    const disk = (): Rate => {
      const iops = 1000 * (1 - 0.02 * position++);
      return { bytesPerSec: iops * 4096, iops, cpuUsPerOp: 5 };
    };
    const seen: number[] = [];
    const rates = await mirroredRounds([disk, disk, disk], 2, { repeats: 3, warmup: true, onRun: (runner) => void seen.push(runner) });
    assert.deepEqual(seen, [0, 1].flatMap((round) => mirroredOrder(3, round, 3)));
    assert.equal(position, 3 + 2 * 3 * 6); // the warm-up ran each runner once, and only once
    for (let round = 0; round < 2; round++) {
      for (const i of [1, 2]) assert.ok(Math.abs(rates[i]![round]!.iops / rates[0]![round]!.iops - 1) < 1e-12, `runner ${i}, round ${round}`);
    }
  });

  it('narrows the spread of a control ratio (a runner against itself on a noisy disk) as repeats grow', async () => {
    // A disk whose every run is off by up to ±15 %, seeded: the worst-round distance from 1
    // of runner 1 against the identical runner 0 shrinks with more repeats per round.
    const spread = async (repeats: number): Promise<number> => {
      const { random } = seeded(7);
      const disk = (): Rate => {
        const iops = 1000 * (0.85 + 0.3 * random());
        return { bytesPerSec: iops * 4096, iops, cpuUsPerOp: 5 };
      };
      const rates = await mirroredRounds([disk, disk], 20, { repeats });
      return Math.max(...rates[1]!.map((r, k) => Math.abs(r.iops / rates[0]![k]!.iops - 1)));
    };
    const one = await spread(1);
    const four = await spread(4);
    assert.ok(four < one * 0.7, `worst round off by ${one.toFixed(3)} at 1 repeat, ${four.toFixed(3)} at 4`);
  });
});
