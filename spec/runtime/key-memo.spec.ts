import assert from 'node:assert/strict';
import { BlockCache, namespaceId } from '../../engine/runtime/catalog/index.js';
import { KeyMemo } from '../../engine/runtime/service/index.js';

describe('runtime/service/key-memo: the cache keys of recently seen block hashes', () => {
  const ns = namespaceId({ model: 'm', layout: 'l', blockSize: 16 });
  const other = namespaceId({ model: 'm', layout: 'l', blockSize: 32 });

  it('gives exactly the key BlockCache.key derives, hit or miss, per namespace', () => {
    const memo = new KeyMemo(4);
    const chain = ['a1', 'b2', 'c3', 'a1'];
    for (let round = 0; round < 3; round++) {
      assert.deepEqual(memo.chain(ns, chain), chain.map((h) => BlockCache.key(ns, h)));
      assert.deepEqual(memo.chain(other, chain), chain.map((h) => BlockCache.key(other, h)));
    }
    assert.notEqual(memo.key(ns, 'a1'), memo.key(other, 'a1'));
  });

  it('hands a repeated frozen chain its frozen keys again with no lookup per hash; another namespace, another chain or an unfrozen one is looked up', () => {
    const derived: string[] = [];
    const memo = new KeyMemo(2, (n, h) => (derived.push(h), BlockCache.key(n, h)));
    const chain = Object.freeze(['p', 'q', 'r']);
    const keys = memo.chain(ns, chain);
    assert.ok(Object.isFrozen(keys), 'the keys are frozen: one array may serve every lookup of the chain');
    assert.deepEqual(keys, chain.map((h) => BlockCache.key(ns, h)));
    assert.deepEqual(derived, ['p', 'q', 'r']);
    // A capacity of 2 has dropped p already: a lookup per hash would derive it again.
    assert.equal(memo.chain(ns, chain), keys, 'the same array');
    assert.deepEqual(derived, ['p', 'q', 'r']);
    // The same hashes in another namespace are other keys.
    assert.deepEqual(memo.chain(other, chain), chain.map((h) => BlockCache.key(other, h)));
    // An equal chain in a new array is looked up (identity is what makes the memo exact).
    const equal = Object.freeze(['p', 'q', 'r']);
    assert.notEqual(memo.chain(ns, equal), keys);
    assert.deepEqual(memo.chain(ns, equal), keys);
    // An array that can still change is never remembered: changed, it gets its own keys.
    const open = ['p', 'q'];
    memo.chain(ns, open);
    open[1] = 's';
    assert.deepEqual(memo.chain(ns, open), ['p', 's'].map((h) => BlockCache.key(ns, h)));
  });

  it('derives a repeated hash once, and again only after it was dropped', () => {
    const derived: string[] = [];
    const memo = new KeyMemo(2, (n, h) => (derived.push(h), BlockCache.key(n, h)));
    memo.chain(ns, ['x', 'y', 'x', 'y']);
    assert.deepEqual(derived, ['x', 'y']);
    memo.key(ns, 'z'); // drops the oldest, x
    memo.key(ns, 'y');
    memo.key(ns, 'x');
    assert.deepEqual(derived, ['x', 'y', 'z', 'x']);
  });

  it('across namespaces: drops the oldest of the namespace seen first, counts exactly what it holds, and keeps serving the one it fills', () => {
    const derived: string[] = [];
    const memo = new KeyMemo(2, (n, h) => (derived.push(`${n === ns ? 'ns' : 'other'}:${h}`), BlockCache.key(n, h)));
    memo.chain(ns, ['a', 'b']);
    memo.key(other, 'c'); // drops ns:a
    assert.equal(memo.size, 2);
    memo.key(ns, 'b');
    memo.key(other, 'c');
    assert.deepEqual(derived, ['ns:a', 'ns:b', 'other:c'], 'what is still held is not derived again');
    memo.key(other, 'd'); // drops ns:b, emptying ns
    memo.key(other, 'e'); // drops other:c from the namespace being filled
    assert.equal(memo.size, 2);
    memo.key(other, 'd');
    memo.key(other, 'e');
    assert.deepEqual(derived.slice(3), ['other:d', 'other:e'], 'the namespace being filled keeps its entries');
    const one = new KeyMemo(1);
    for (let i = 0; i < 10; i++) assert.equal(one.key(ns, `h${i % 3}`), BlockCache.key(ns, `h${i % 3}`));
    assert.equal(one.size, 1);
  });

  it('never holds more than its capacity', () => {
    const memo = new KeyMemo(64);
    for (let i = 0; i < 1000; i++) memo.key(ns, `h${i}`);
    assert.equal(memo.size, 64);
    assert.equal(memo.key(ns, 'h999'), BlockCache.key(ns, 'h999'));
    assert.throws(() => new KeyMemo(0), RangeError);
  });
});
