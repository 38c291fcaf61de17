import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { GrantSource } from '../../engine/runtime/session/index.js';

describe('runtime/session/grant-source: grant secrets drawn from the CSPRNG in batches', () => {
  it('hands out every drawn byte once, in order, one draw per batch', () => {
    const drawn: Buffer[] = [];
    const source = new GrantSource(4, (size) => {
      const b = randomBytes(size);
      drawn.push(Buffer.from(b));
      return b;
    });
    const out = Array.from({ length: 10 }, () => source.next());
    assert.equal(drawn.length, 3);
    assert.deepEqual(out, Buffer.concat(drawn).toString('hex').match(/.{32}/g)!.slice(0, 10));
    assert.equal(new Set(out).size, 10);
    for (const g of out) assert.match(g, /^[0-9a-f]{32}$/);
  });

  it('keeps no grant it handed out', () => {
    let pool: Buffer | null = null;
    const source = new GrantSource(3, (size) => (pool = randomBytes(size)));
    const g = source.next();
    assert.ok(pool !== null && !(pool as Buffer).toString('hex').includes(g));
    assert.throws(() => new GrantSource(0), RangeError);
  });
});
