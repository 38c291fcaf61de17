/**
 * How IoRing hands completions to JS: in batches of at most a quarter of the depth, so the
 * first ops of a burst go back to the kernel while the rest still wait. Reads of a file in the
 * page cache finish as soon as they are submitted, so every submit finds a full burst waiting:
 * the reads a callback's batch resubmits sit in the ring's queue (stats.queued) until the batch
 * is settled and the next pump runs, so the most seen queued inside a callback is the batch
 * size less one. io_uring only: the thread-pool backend's completions trickle in from its
 * threads, so its batches stay small whatever the bound and a case there could not fail.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { allocAligned, openFile, openRing } from '../../native/index.js';
import { scratchDir } from './fixtures/scratch.js';

const BLOCK = 4096;
const DEPTH = 64;

describe('IoRing completion batches (io_uring)', function () {
  this.timeout(30_000);
  const scratch = scratchDir('batches');
  after(() => scratch.remove());

  it('settles a burst a quarter of the depth at a time, resubmitting between batches', async () => {
    const path = scratch.path('cached.bin');
    writeFileSync(path, randomBytes(256 * BLOCK));
    const file = openFile(path, { direct: false });
    const ring = openRing({ depth: DEPTH, backend: 'io_uring' });
    const slots = Array.from({ length: DEPTH }, () => allocAligned(BLOCK));
    let largestBatch = 0;
    await new Promise<void>((resolve, reject) => {
      let left = 4000;
      let running = DEPTH;
      const done = Array.from({ length: DEPTH }, (_, slot) => (error: Error | null, bytes: number): void => {
        if (error) return reject(error);
        if (bytes !== BLOCK) return reject(new Error(`read ${bytes} bytes`));
        largestBatch = Math.max(largestBatch, ring.stats.queued + 1);
        if (--left >= DEPTH) ring.submitRead(file, slots[slot]!, ((left * 7) % 256) * BLOCK, done[slot]!);
        else if (--running === 0) resolve();
      });
      for (let slot = 0; slot < DEPTH; slot++) ring.submitRead(file, slots[slot]!, slot * BLOCK, done[slot]!);
    });
    await ring.close();
    await file.close();
    assert.ok(largestBatch <= DEPTH / 4, `a batch of ${largestBatch} completions at depth ${DEPTH}`);
    assert.ok(largestBatch > 1, 'completions came one per batch');
  });
});
