/**
 * allocAligned: a buffer of 2 MiB or more (the Manager's DRAM arena) is a mapping of its own, 2 MiB
 * aligned, zero and resident when it is returned (huge pages where the kernel gives them), and
 * unmapped when collected; smaller ones come from posix_memalign, zero-filled.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { allocAligned, bufferAddress } from '../../native/index.js';
import { runFixture } from './fixtures/scratch.js';

const MiB = 1 << 20;

describe('native/aligned-buffer: allocAligned', function () {
  this.timeout(60_000);

  it('a large buffer is 2 MiB aligned, of the exact length asked, zero, and writable to its last byte', () => {
    const b = allocAligned(3 * MiB + 5);
    assert.equal(b.length, 3 * MiB + 5);
    assert.equal(bufferAddress(b) % BigInt(2 * MiB), 0n, 'its own mapping, aligned to a huge page');
    assert.ok(b.every((x) => x === 0));
    b[b.length - 1] = 7;
    b[0] = 9;
    assert.deepEqual([b[0], b[b.length - 1]], [9, 7]);
  });

  it('a small one keeps the alignment asked for (posix_memalign), zero-filled', () => {
    for (const [size, alignment] of [[4096, 4096], [100, 512], [MiB, 4096]] as const) {
      const b = allocAligned(size, alignment);
      assert.equal(b.length, size);
      assert.equal(bufferAddress(b) % BigInt(alignment), 0n);
      assert.ok(b.every((x) => x === 0));
    }
  });

  it('a size no mapping can hold is a SystemError naming the call and errno (ENOMEM), not a crash', () => {
    assert.throws(() => allocAligned(2 ** 52), (e: NodeJS.ErrnoException) => e.code === 'ENOMEM' && e.syscall === 'mmap' && /4503599627370496 bytes/.test(e.message));
  });

  it('large buffers are resident once made, and their memory goes back once they are collected', async () => {
    const r = await runFixture(fileURLToPath(new URL('./fixtures/large-alloc-gc.ts', import.meta.url)), [], '', ['--expose-gc']);
    assert.equal(r.code, 0, r.stderr);
    const { before, made, after, zero } = JSON.parse(r.stdout) as { before: number; made: number; after: number; zero: boolean };
    assert.ok(zero);
    assert.ok(made - before >= 250 * 1024, `resident grew by ${made - before} KiB for 256 MiB made (populated when returned)`);
    assert.ok(after - before < 64 * 1024, `resident ${after - before} KiB above the start after collection (unmapped)`);
  });
});
