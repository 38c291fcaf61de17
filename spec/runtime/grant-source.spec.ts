import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { GrantSource, TicketTable, grantHex, grantKey, writeGrant } from '../../engine/runtime/session/index.js';

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

  it('a key carries the grant\'s 16 bytes: copied into a reply as drawn, written back from the key, and its hex digits are those bytes', () => {
    let pool: Buffer | null = null;
    const source = new GrantSource(2, (size) => (pool = randomBytes(size)));
    const out = Buffer.alloc(40, 0xee);
    const key = source.take(out, 12);
    const bytes = out.subarray(12, 28);
    assert.equal(grantHex(key), bytes.toString('hex'));
    assert.ok(out.subarray(0, 12).every((b) => b === 0xee) && out.subarray(28).every((b) => b === 0xee), 'nothing written outside the 16 bytes');
    assert.ok(pool!.subarray(0, 16).every((b) => b === 0), 'the spent bytes are overwritten');
    assert.equal(grantKey(grantHex(key)), key);
    const again = Buffer.alloc(16);
    writeGrant(key, again, 0);
    assert.deepEqual(again, Buffer.from(bytes));
    for (const bad of ['', 'x'.repeat(32), grantHex(key).toUpperCase().replace(/^[0-9]*/, 'A'), grantHex(key) + '0', grantHex(key).slice(1)]) assert.equal(grantKey(bad), null, JSON.stringify(bad));
    // Every byte value survives the round trip (keys hold code units 0..0xffff, surrogates too).
    const all = Buffer.from(Array.from({ length: 16 }, (_, i) => [0, 0xff, 0xd8, 0x00, 0xdf, 0xff, 0x7f, 0x80][i % 8]!));
    const k = grantKey(all.toString('hex'))!;
    assert.equal(grantHex(k), all.toString('hex'));
  });

  it('a ticket table admits the grant it wrote into a reply, and no other', () => {
    const t = new TicketTable();
    t.set(7, { cancel: () => undefined });
    const reply = Buffer.alloc(16);
    assert.equal(t.writeGrant(7, reply, 0), true);
    const hex = reply.toString('hex');
    assert.equal(t.grant(7), hex, 'the JSON form of the same grant');
    assert.equal(t.admits(7, hex), true);
    const wrong = (hex[0] === '0' ? '1' : '0') + hex.slice(1);
    assert.equal(t.admits(7, wrong), false);
    assert.equal(t.admits(7, hex.toUpperCase() === hex ? hex : hex.toUpperCase()), hex.toUpperCase() === hex, 'digits as a reply gives them, lowercase');
    assert.equal(t.admits(8, hex), false);
    assert.equal(t.writeGrant(8, reply, 0), false, 'no grant for a ticket the table does not hold');
    assert.equal(t.writeGrant(9, reply, 0, true), true, 'ahead: for a ticket filed later in the turn');
    t.set(9, { cancel: () => undefined });
    assert.equal(t.grant(9), reply.toString('hex'));
    t.delete(7);
    assert.equal(t.admits(7, hex), false, 'the grant went with its ticket');
  });
});
