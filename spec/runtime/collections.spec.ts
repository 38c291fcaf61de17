import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { IdTable, NameTable } from '../../engine/runtime/collections/index.js';
import { TicketTable } from '../../engine/runtime/session/index.js';
import { REPO } from './support.js';

/** A small deterministic generator (the model test must replay the same way on every machine). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);

/**
 * A child that churns a table as the lookup path does (about `live` tickets open, one added and
 * one deleted per lookup, each with a payload of its own) after the table has lived through a
 * few young-generation collections, and prints what V8's scavenges promoted while it churned.
 */
type ChurnKind = 'map' | 'id-table' | 'ticket-table' | 'name-map' | 'name-table' | 'rank-agreement';
const churnScript = (kind: ChurnKind) => `
  import { setFlagsFromString } from 'node:v8';
  const { IdTable, NameTable } = await import(${JSON.stringify(join(REPO, 'engine/runtime/collections/index.ts'))});
  const { TicketTable } = await import(${JSON.stringify(join(REPO, 'engine/runtime/session/index.ts'))});
  const { RankAgreement } = await import(${JSON.stringify(join(REPO, 'engine/runtime/lifecycles/index.ts'))});
  const kind = ${JSON.stringify(kind)};
  const table = kind === 'map' || kind === 'name-map' ? new Map() : kind === 'id-table' ? new IdTable() : kind === 'name-table' ? new NameTable() : new TicketTable();
  // Named tables are keyed as the rank agreement's: an engine's request id, a new string each.
  const key = kind.startsWith('name') || kind === 'rank-agreement' ? (n) => 'cmpl-' + n.toString(16) + '-0' : (n) => n;
  const live = 16;
  let id = 1;
  // The rank agreement as two ranks of each request use it: both join, the group waits (16
  // requests at a time), then both report and the group goes.
  const agreement = new RankAgreement();
  const member = (n) => ({ agreed() {}, defer() {}, payload: new Array(24).fill(n) });
  const churn = kind === 'rank-agreement' ? (n) => {
    for (let i = 0; i < n; i++) {
      agreement.join(key(id), 0, 2, member(id));
      agreement.join(key(id), 1, 2, member(id));
      if (id > live) { agreement.report(key(id - live), 0, 3); agreement.report(key(id - live), 1, 2); }
      id++;
    }
  } : (n) => {
    for (let i = 0; i < n; i++) {
      table.set(key(id), { id, cancel() {}, payload: new Array(24).fill(id) });
      if (kind === 'ticket-table') table.grant(id);
      if (table.size > live) table.delete(key(id - live));
      id++;
    }
  };
  churn(2000);
  // The table (and whatever it holds now) lives through a few scavenges: in a Manager that has
  // served a while, it is in the old generation.
  for (let k = 0; k < 4; k++) { let g = []; for (let i = 0; i < 150000; i++) g.push({ i }); g = null; }
  setFlagsFromString('--trace-gc-nvp');
  churn(150000);
  setFlagsFromString('--no-trace-gc-nvp');
  process.stdout.write('\\nsize ' + (kind === 'rank-agreement' ? agreement.open : table.size) + '\\n');
`;

function promotedWhileChurning(kind: ChurnKind): { scavenges: number; promoted: number } {
  const r = spawnSync(process.execPath, ['--min-semi-space-size=1', '--max-semi-space-size=1', '--import', 'tsx', '--input-type=module', '-e', churnScript(kind)], { cwd: REPO, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /\nsize 16\n/);
  // The first two scavenges promote what the child's start left young (the same 1.3 MB with no
  // table at all): the churn's own is what the rest promote.
  const scavenges = r.stdout.split('\n').filter((l) => / gc=s /.test(l)).slice(2);
  const promoted = scavenges.reduce((sum, l) => sum + Number(/ promoted=(\d+)/.exec(l)?.[1] ?? NaN), 0);
  return { scavenges: scavenges.length, promoted };
}

describe('runtime/collections: IdTable and NameTable, tables that do not allocate as they churn', () => {
  it('agrees with a Map over a long random mix of set, get, has and delete, through growth and collisions', () => {
    const next = rng(7);
    const table = new IdTable<string>(2);
    const model = new Map<number, string>();
    // Sequential ids as the service makes them, ids far apart, and ids that share their low bits.
    const pick = () => {
      const r = next();
      if (r < 0.5) return 1 + Math.floor(next() * 64);
      if (r < 0.8) return 1 + Math.floor(next() * (Number.MAX_SAFE_INTEGER - 1));
      return 2 ** 32 * (1 + Math.floor(next() * 8)) + 5;
    };
    for (let step = 0; step < 20_000; step++) {
      const id = pick();
      const r = next();
      if (r < 0.45) {
        const v = `v${step}`;
        table.set(id, v);
        model.set(id, v);
      } else if (r < 0.8) assert.equal(table.delete(id), model.delete(id), `delete(${id}) at step ${step}`);
      else assert.equal(table.get(id), model.get(id), `get(${id}) at step ${step}`);
      assert.equal(table.has(id), model.has(id));
      assert.equal(table.size, model.size);
      if (step % 997 === 0) {
        assert.deepEqual(sorted(table.keys()), sorted([...model.keys()]));
        assert.deepEqual(table.values().sort(), [...model.values()].sort());
        for (const [k, v] of model) assert.equal(table.get(k), v, `every entry is found after deletes shifted others (id ${k})`);
      }
    }
  });

  it('finds every entry after deleting from the middle of a run of colliding ids (backward shift)', () => {
    const table = new IdTable<number>(8);
    // Ids 2^32 apart share their low 32 bits, so their home slot: one run of probes.
    const ids = Array.from({ length: 7 }, (_, i) => 2 ** 32 * (i + 1) + 3);
    for (const id of ids) table.set(id, id);
    const deleted = new Set<number>();
    for (const gone of [ids[2]!, ids[0]!, ids[6]!, ids[4]!]) {
      assert.equal(table.delete(gone), true);
      deleted.add(gone);
      for (const id of ids) assert.equal(table.get(id), deleted.has(id) ? undefined : id, `after deleting ${[...deleted].join(', ')}, id ${id}`);
    }
    assert.equal(table.size, 3);
  });

  it('keeps its slots while it churns below what it has held, and grows only past half full', () => {
    const table = new IdTable<object>(16);
    assert.equal(table.slots, 32);
    for (let id = 1; id <= 100_000; id++) {
      if (table.size === 16) table.delete(id - 16);
      table.set(id, {});
    }
    assert.equal(table.size, 16);
    assert.equal(table.slots, 32, 'churn at a steady 16 entries never grew it');
    table.set(200_000, {});
    assert.equal(table.slots, 64, 'a 17th entry would fill it past half: it doubled once');
    for (let id = 200_001; id < 200_016; id++) table.set(id, {});
    assert.equal(table.slots, 64);
  });

  it('refuses ids that are not positive safe integers and capacities that are not positive integers', () => {
    const table = new IdTable<number>();
    for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53]) {
      assert.throws(() => table.set(bad, 1), /an id must be a positive safe integer/, String(bad));
      assert.equal(table.get(bad), undefined);
      assert.equal(table.delete(bad), false);
    }
    assert.equal(table.size, 0);
    for (const bad of [0, -3, 2.5, Number.NaN, 2 ** 40]) assert.throws(() => new IdTable(bad), /capacity must be/, String(bad));
  });

  it('NameTable agrees with a Map over a long random mix of set, get, has and delete of names, through growth and collisions', () => {
    const next = rng(11);
    const table = new NameTable<number>(2);
    const model = new Map<string, number>();
    const pool = ['', 'a', 'cmpl-1', 'cmpl-1 ', 'é', '\u{1F600}', 'x'.repeat(300), ...Array.from({ length: 60 }, (_, i) => `req-${i}-${(i * 7919).toString(36)}`)];
    for (let step = 0; step < 20_000; step++) {
      const name = pool[Math.floor(next() * pool.length)]!;
      const r = next();
      if (r < 0.45) {
        table.set(name, step);
        model.set(name, step);
      } else if (r < 0.8) assert.equal(table.delete(name), model.delete(name), `delete(${JSON.stringify(name)}) at step ${step}`);
      else assert.equal(table.get(name), model.get(name), `get(${JSON.stringify(name)}) at step ${step}`);
      assert.equal(table.has(name), model.has(name));
      assert.equal(table.size, model.size);
      if (step % 997 === 0) {
        assert.deepEqual(table.keys().sort(), [...model.keys()].sort());
        for (const [k, v] of model) assert.equal(table.get(k), v, `every entry is found after deletes shifted others (${JSON.stringify(k)})`);
      }
    }
    assert.throws(() => table.set(7 as unknown as string, 1), /a name must be a string/);
    assert.equal(table.get(7 as unknown as string), undefined);
  });

  it("TicketTable keeps a ticket's grant with it, forgets both on delete and remembers the last id added", () => {
    const t = new TicketTable();
    const cancelled: number[] = [];
    t.set(5, { cancel: () => cancelled.push(5) });
    t.set(9, { cancel: () => cancelled.push(9) });
    assert.equal(t.lastAdded, 9);
    assert.equal(t.grant(12), null, 'no grant for a ticket the table does not hold');
    const g = t.grant(5)!;
    assert.match(g, /^[0-9a-f]{32}$/);
    assert.equal(t.grant(5), g, 'one grant per ticket');
    assert.equal(t.admits(5, g), true);
    assert.equal(t.admits(9, g), false);
    for (const x of t.values()) x.cancel();
    assert.deepEqual(cancelled.sort(), [5, 9]);
    assert.equal(t.delete(5), true);
    assert.equal(t.admits(5, g), false, 'the grant went with its ticket');
    assert.equal(t.size, 1);
  });

  describe('in a churning V8 heap', function () {
    this.timeout(120_000);
    it('promotes nothing of what it holds while it churns, where a Map whose table was promoted promotes all of it', () => {
      // The control: a Map's rebuilt tables chain from the promoted one, so each ticket is
      // promoted (about 200 bytes of payload and entry each, 150,000 of them).
      const map = promotedWhileChurning('map');
      assert.ok(map.scavenges >= 10, `the churn ran through scavenges (${map.scavenges})`);
      assert.ok(map.promoted > 8 * 1024 * 1024, `the measurement sees a Map's promotion: ${map.promoted} bytes`);
      for (const kind of ['id-table', 'ticket-table'] as const) {
        const r = promotedWhileChurning(kind);
        assert.ok(r.scavenges >= 10, `${kind}: the churn ran through scavenges (${r.scavenges})`);
        assert.ok(r.promoted < 256 * 1024, `${kind}: ${r.promoted} bytes promoted over ${r.scavenges} scavenges (a Map: ${map.promoted})`);
      }
    });

    it('NameTable, and the rank agreement in it, promote nothing of what they hold while they churn by request id, where a Map keyed so promotes all of it', () => {
      const map = promotedWhileChurning('name-map');
      assert.ok(map.promoted > 8 * 1024 * 1024, `the measurement sees a Map's promotion: ${map.promoted} bytes`);
      for (const kind of ['name-table', 'rank-agreement'] as const) {
        const r = promotedWhileChurning(kind);
        assert.ok(r.scavenges >= 10, `${kind}: the churn ran through scavenges (${r.scavenges})`);
        assert.ok(r.promoted < 256 * 1024, `${kind}: ${r.promoted} bytes promoted over ${r.scavenges} scavenges (a Map: ${map.promoted})`);
      }
    });
  });
});
