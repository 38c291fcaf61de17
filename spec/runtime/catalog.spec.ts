import assert from 'node:assert/strict';
import { BlockCache } from '../../engine/runtime/catalog/index.js';
import { DramArena, SsdTier } from '../../engine/runtime/tiers/index.js';
import { tempDir } from './support.js';

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('runtime/catalog: the block cache', () => {
  it('a save that finds its block still staging by another save takes that save\'s outcome: if it fails, this one stores the block', async () => {
    const cache = new BlockCache(new DramArena(4096, 4), null);
    const key = BlockCache.key('ns', 'h1');
    const failing = cache.stage(key, async () => {
      await wait(30);
      throw new Error('page read failed');
    });
    const second = cache.stage(key, async (into) => {
      into.fill(7);
    });
    assert.equal(await failing, 'page-read-failed');
    assert.equal(await second, 'stored');
    assert.equal(cache.probe([key]).matched, 1);
    const r = await cache.inDram(key);
    assert.ok('slot' in r && r.slot.every((b) => b === 7));
  });

  it('inDramNow serves a DRAM hit without a promise and holds its slot busy until idle; it answers a block not ready at once too', async () => {
    const cache = new BlockCache(new DramArena(4096, 1), null);
    const a = BlockCache.key('ns', 'now-a');
    const b = BlockCache.key('ns', 'now-b');
    assert.equal(await cache.stage(a, async (into) => void into.fill(9)), 'stored');
    const hit = cache.inDramNow(a);
    assert.ok(hit !== null && 'slot' in hit && hit.tier === 'dram' && hit.slot.every((x) => x === 9));
    assert.deepEqual(cache.inDramNow(b), { reason: 'absent' });
    // The only slot is busy with the restore's copy: a new block cannot take it.
    assert.equal(await cache.stage(b, async () => undefined), 'dram-full');
    cache.idle(a);
    assert.equal(await cache.stage(b, async () => undefined), 'stored');
    assert.deepEqual(cache.inDramNow(a), { reason: 'absent' }, 'evicted once idle (no SSD tier behind it)');
  });

  it('a save that finds its block staging by a save that succeeds is deduplicated, after that save is', async () => {
    const cache = new BlockCache(new DramArena(4096, 4), null);
    const key = BlockCache.key('ns', 'h2');
    let firstDone = false;
    const first = cache.stage(key, async (into) => {
      await wait(30);
      into.fill(1);
      firstDone = true;
    });
    const second = cache.stage(key, async () => assert.fail('a stored block is not copied again'));
    assert.equal(await second, 'deduplicated');
    assert.ok(firstDone);
    assert.equal(await first, 'stored');
  });

  it('a lookup waiting on a staging block is woken when that block settles, not by other saves', async () => {
    const cache = new BlockCache(new DramArena(4096, 8), null);
    const [a, b] = [BlockCache.key('ns', 'a'), BlockCache.key('ns', 'b')];
    let release!: () => void;
    const slow = cache.stage(a, () => new Promise<void>((r) => (release = r)));
    let woken = 0;
    cache.onSettled(a, () => woken++);
    for (let i = 0; i < 5; i++) await cache.stage(BlockCache.key('ns', `other${i}`), async () => undefined);
    await cache.stage(b, async () => undefined);
    assert.equal(woken, 0, 'other blocks settling do not wake it');
    release();
    assert.equal(await slow, 'stored');
    assert.equal(woken, 1);
  });

  it('a write-back whose index commit fails gives back every pin, busy count and SSD slot, and names why; the next one succeeds', async () => {
    const ssd = new SsdTier({ dir: tempDir('persist-fail'), slotBytes: 4096, slots: 2 });
    await ssd.preallocation;
    const cache = new BlockCache(new DramArena(4096, 4), ssd);
    const [a, b, c] = ['a', 'b', 'c'].map((h) => BlockCache.key('ns', h)) as [string, string, string];
    for (const k of [a, b]) {
      assert.equal(await cache.stage(k, async (into) => void into.fill(1)), 'stored');
      assert.equal((await cache.persist([k])).get(k), 'persisted');
    }
    assert.equal(await cache.stage(c, async (into) => void into.fill(3)), 'stored');
    // The SSD tier is full: c's write-back evicts a's slot, whose drop the index must commit
    // first. That commit fails as a full disk would.
    const commit = ssd.index.commit.bind(ssd.index);
    ssd.index.commit = async () => {
      throw Object.assign(new Error('no space'), { code: 'ENOSPC' });
    };
    assert.equal((await cache.persist([c])).get(c), 'ssd-no-space');
    ssd.index.commit = commit;
    const block = cache.blocks.get(c)!;
    assert.deepEqual([block.pins, block.dramBusy, block.ssd], [0, 0, -1], 'nothing of the failed write-back is held');
    assert.equal(cache.usage().pinned, 0);
    assert.equal(ssd.pool.inUse, 1, "the slot taken for c is free again (a's was evicted for it)");
    assert.equal((await cache.persist([c])).get(c), 'persisted', 'a later write-back of the block succeeds');
    assert.equal(ssd.index.lookup(c)?.slot !== undefined, true);
    await ssd.close();
  });

  it('a lease goes back to the block it was taken on: one dropped for a checksum mismatch and stored again under its key keeps the new lease', async () => {
    const ssd = new SsdTier({ dir: tempDir('lease-block'), slotBytes: 4096, slots: 4 });
    await ssd.preallocation;
    const cache = new BlockCache(new DramArena(4096, 1), ssd);
    const [k, j] = ['k', 'j'].map((h) => BlockCache.key('ns', h)) as [string, string];
    for (const key of [k, j]) {
      assert.equal(await cache.stage(key, async (into) => void into.fill(5)), 'stored');
      assert.equal((await cache.persist([key])).get(key), 'persisted');
    }
    assert.equal(cache.blocks.get(k)!.dram, -1, 'k is on SSD only (j took the one DRAM slot)');
    // Ticket A leases k; then k's bytes fail their checksum on the read a restore makes.
    const a = cache.probe([k]);
    assert.equal(a.blocks.length, 1);
    cache.pin(a.blocks);
    cache.blocks.get(k)!.crc ^= 1;
    assert.deepEqual(await cache.inDram(k), { reason: 'checksum' });
    assert.equal(cache.blocks.has(k), false, 'a block whose bytes do not match is forgotten');
    // The engine saves k again, and ticket B leases the new block.
    assert.equal(await cache.stage(k, async (into) => void into.fill(6)), 'stored');
    const b = cache.probe([k]);
    assert.notEqual(b.blocks[0], a.blocks[0]);
    cache.pin(b.blocks);
    cache.unpin(a.blocks);
    assert.equal(cache.blocks.get(k)!.pins, 1, "A's release gave back A's lease, not B's");
    assert.equal(cache.usage().pinned, 1);
    cache.unpin(b.blocks);
    assert.equal(cache.usage().pinned, 0);
    await ssd.close();
  });
});
