/**
 * The ring's JS table of ops by id (native/lib/io-op.ts OpTable: open addressing, backward-shift
 * deletion, grown at half full), driven against a Map with the same ids: a seeded random churn
 * of adds and removes over ids that collide in their home slots, wrap around the table's end and
 * reach 2^32 - 1, through growth; after every step every id agrees with the Map (found, or not),
 * and so do the size and the ops listed in id order. Values that are no id find nothing.
 */
import assert from 'node:assert/strict';
import { Op, OpTable } from '../../native/lib/io-op.js';
import { seeded } from '../support/seeded.js';

/** A stand-in op: the table only reads `id` (values() sorts by it). */
const op = (id: number): Op => ({ id }) as Op;

describe('ring ops by id (OpTable)', () => {
  it('agrees with a Map through random adds and removes, growth and probe runs that wrap', () => {
    const { random } = seeded(23);
    const table = new OpTable(16);
    const model = new Map<number, Op>();
    // Consecutive runs (as takeId hands out), ids near 2^32 - 1 and multiples of 2^16 (equal
    // low bits): every kind of home-slot collision a 16..1024-slot table can have.
    const pool: number[] = [];
    for (let i = 1; i <= 200; i++) pool.push(i, 0xffffffff - i + 1, i * 65536);
    for (let step = 0; step < 6000; step++) {
      const id = pool[Math.floor(random() * pool.length)]!;
      // More adds than removes early (growth), then an even mix.
      if (random() < (step < 3000 ? 0.7 : 0.5)) {
        const o = op(id);
        table.set(id, o);
        model.set(id, o);
      } else {
        assert.equal(table.delete(id), model.delete(id), `delete ${id} at step ${step}`);
      }
      if (step % 50 === 0 || step > 5900) {
        assert.equal(table.size, model.size, `size at step ${step}`);
        for (const p of pool) assert.equal(table.get(p), model.get(p), `get ${p} at step ${step}`);
        assert.deepEqual(table.values().map((o) => o.id), [...model.keys()].sort((a, b) => a - b));
      }
    }
    assert.ok(model.size > 64, `the table grew past its first sizes (${model.size} held)`);
    for (const id of [...model.keys()]) assert.equal(table.delete(id), true);
    assert.equal(table.size, 0);
    for (const p of pool) assert.equal(table.has(p), false);
  });

  it('finds nothing for a value that is no id: 0, negatives, fractions, NaN, 2^32 and above', () => {
    const table = new OpTable();
    for (let id = 1; id <= 40; id++) table.set(id, op(id));
    table.set(0xffffffff, op(0xffffffff));
    for (const bad of [0, -1, 1.5, Number.NaN, 2 ** 32, 2 ** 32 + 1, 2 ** 53, -(2 ** 32) + 1]) {
      assert.equal(table.get(bad), undefined, String(bad));
      assert.equal(table.delete(bad), false, String(bad));
    }
    assert.equal(table.size, 41);
    assert.equal(table.get(0xffffffff)?.id, 0xffffffff);
  });
});
