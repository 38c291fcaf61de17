import assert from 'node:assert/strict';
import { BlockCache } from '../../engine/runtime/catalog/index.js';
import { DramArena } from '../../engine/runtime/tiers/index.js';

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
});
