/**
 * A pump of more ops than one native call takes: IoRing hands queueMany at most 64 rows per
 * call (their buffers travel as call arguments), so a deeper ring's pump makes several calls.
 * 300 reads queued at once on a depth-256 ring (a file in the page cache: they finish as soon as
 * they are submitted), each into its own buffer at its own offset: every one must land exactly
 * its own block (a row paired with another call's buffer would land a wrong one).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { allocAligned, openFile, openRing } from '../../native/index.js';
import { scratchDir } from './fixtures/scratch.js';

const BLOCK = 4096;

describe('IoRing pumps deeper than one native call (io_uring)', function () {
  this.timeout(30_000);
  const scratch = scratchDir('deep-pump');
  after(() => scratch.remove());

  for (const api of ['read', 'submitRead'] as const) {
    it(`lands 300 ${api}s queued at once on a depth-256 ring, each in its own buffer`, async () => {
      const path = scratch.path(`cached-${api}.bin`);
      const data = randomBytes(512 * BLOCK);
      writeFileSync(path, data);
      const file = openFile(path, { direct: false });
      const ring = openRing({ depth: 256, backend: 'io_uring' });
      const slots = Array.from({ length: 300 }, () => allocAligned(BLOCK));
      const block = (i: number) => (i * 37) % 512;
      await Promise.all(
        slots.map((slot, i) =>
          api === 'read'
            ? ring.read(file, slot, block(i) * BLOCK)
            : new Promise<number>((resolve, reject) => ring.submitRead(file, slot, block(i) * BLOCK, (error, bytes) => (error ? reject(error) : resolve(bytes)))),
        ),
      ).then((moved) => moved.forEach((bytes, i) => assert.equal(bytes, BLOCK, `op ${i}`)));
      slots.forEach((slot, i) => assert.ok(Buffer.from(slot).equals(data.subarray(block(i) * BLOCK, (block(i) + 1) * BLOCK)), `op ${i} holds block ${block(i)}`));
      assert.equal(ring.stats.inFlight, 0);
      await ring.close();
      await file.close();
    });
  }
});
