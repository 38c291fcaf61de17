import assert from 'node:assert/strict';
import { BlockCache } from '../../engine/runtime/catalog/index.js';
import type { Logger } from '../../engine/runtime/log/index.js';
import type { PageFile } from '../../engine/runtime/pages/index.js';
import { CacheService } from '../../engine/runtime/service/index.js';
import { Session } from '../../engine/runtime/session/index.js';
import { DramArena, SsdTier } from '../../engine/runtime/tiers/index.js';
import { tempDir } from './support.js';

const BLOCK = 4096;
const NS = { model: 'm', layout: 'l', blockSize: 16 };
const quiet: Logger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined } as unknown as Logger;
const tick = () => new Promise((r) => setImmediate(r));

/**
 * Registered pages whose copies into them land only when the spec lets them: what a session's
 * close must wait for. `close` records what was still in flight and leased when it ran.
 */
function heldPages(count: number, cache: BlockCache) {
  const landing: (() => void)[] = [];
  const state = { inFlight: 0, closedWith: null as null | { inFlight: number; pinned: number } };
  const pages = {
    pages: count,
    readPage: async (i: number, into: Buffer) => void into.fill(i + 1),
    writePages: (_pages: number[], _from: Buffer[]) => {
      state.inFlight++;
      return new Promise<void>((resolve) => landing.push(() => {
        state.inFlight--;
        resolve();
      }));
    },
    setFlag: async () => undefined,
    close: () => {
      state.closedWith = { inFlight: state.inFlight, pinned: cache.usage().pinned };
    },
  };
  return { pages: pages as unknown as PageFile, landing, state };
}

describe('runtime/service: a session closing with restores in flight', () => {
  for (const where of ['dram', 'ssd'] as const) {
    it(`(${where} tier) its copies land before its leases go, and its pages are released last`, async () => {
      const ssd = new SsdTier({ dir: tempDir('drain-unit'), slotBytes: BLOCK, slots: 16 });
      await ssd.preallocation;
      const cache = new BlockCache(new DramArena(BLOCK, 8), ssd);
      const service = new CacheService(cache, { leaseMs: 60_000, maxTickets: 64, records: 64 }, null, quiet);
      const session = new Session(1, 'spec', { engine: 'vllm', version: 'x' });
      const held = heldPages(8, cache);
      session.pages = held.pages;
      const hashes = ['h0', 'h1', 'h2', 'h3'];
      assert.deepEqual((await service.save(session, { namespace: NS, hashes, pages: [0, 1, 2, 3] })).blocks, ['stored', 'stored', 'stored', 'stored']);
      if (where === 'ssd') {
        // Push them out of DRAM (they stay on SSD): the restore then reads them back first.
        const other = new Session(2, 'other', { engine: 'vllm', version: 'x' });
        other.pages = heldPages(8, cache).pages;
        await service.save(other, { namespace: NS, hashes: Array.from({ length: 8 }, (_, i) => `x${i}`), pages: [0, 1, 2, 3, 4, 5, 6, 7] });
      }
      const ticket = await service.lookup(session, { namespace: NS, hashes, request: 'r', rank: 0, worldSize: 1, deadlineMs: 10_000 } as never);
      assert.equal(ticket.state, 'ready');
      if (where === 'ssd') assert.deepEqual(ticket.tiers, { dram: 0, ssd: 4 });
      const restoring = service.restore(session, { ticket: ticket.ticket, pages: [4, 5, 6, 7] });
      while (held.state.inFlight === 0) await tick();
      const closing = session.close();
      for (let i = 0; i < 20; i++) await tick();
      assert.equal(held.state.closedWith, null, 'pages are not released while a copy into them can still land');
      assert.equal(cache.usage().pinned, 4, 'the leases stay while the I/O drains');
      while (held.landing.length > 0 || held.state.inFlight > 0) {
        held.landing.shift()?.();
        await tick();
      }
      await closing;
      assert.deepEqual(held.state.closedWith, { inFlight: 0, pinned: 0 }, 'released once every copy had landed, after the leases');
      assert.equal((await restoring).state, 'cancelled');
      assert.equal(service.openTickets, 0);
      await ssd.close();
    });
  }
});

describe('runtime/service: lookups', () => {
  const setupService = () => {
    const cache = new BlockCache(new DramArena(BLOCK, 16), null);
    const service = new CacheService(cache, { leaseMs: 60_000, maxTickets: 64, records: 64 }, null, quiet);
    const session = new Session(1, 'spec', { engine: 'vllm', version: 'x' });
    return { cache, service, session };
  };
  const ask = (service: CacheService, session: Session, hashes: string[], request: string, rank = 0, worldSize = 1) =>
    Promise.resolve(service.lookup(session, { namespace: NS, hashes, request, rank, worldSize, deadlineMs: 10_000 } as never));

  it('a single rank answered at once gets what two ranks agreeing on the same match get: state, boundary, leases, record', async () => {
    const { cache, service, session } = setupService();
    for (const h of ['a', 'b']) await cache.stage(BlockCache.key(JSON.stringify([NS.model, NS.layout, NS.blockSize]), h), async () => undefined);
    const solo = await ask(service, session, ['a', 'b', 'c'], 'solo');
    const ranks = await Promise.all([ask(service, session, ['a', 'b', 'c'], 'two', 0, 2), ask(service, session, ['a', 'b', 'c'], 'two', 1, 2)]);
    for (const r of ranks) assert.deepEqual({ ...r, ticket: 0 }, { ...solo, ticket: 0 });
    assert.equal(cache.usage().pinned, 2);
    const records = service.records.list();
    const strip = ({ ticket: _t, request: _r, rank: _k, at: _a, latencyUs: _l, ...rest }: (typeof records)[number]) => rest;
    assert.deepEqual(strip(records.find((r) => r.request === 'solo')!), strip(records.find((r) => r.request === 'two')!));
    for (const t of [solo, ...ranks]) service.release(session, t.ticket);
    assert.equal(cache.usage().pinned, 0);
    assert.equal(service.xstate.actors, 3, 'three tickets were open at once: three actors, kept for the next ones');
    const again = await ask(service, session, ['a'], 'again');
    assert.equal(service.xstate.actors, 3, 'a later lookup reuses one');
    service.release(session, again.ticket);
  });

  it('a record holds its time as epoch ms and is listed with it as an ISO string', async () => {
    const { service, session } = setupService();
    const before = Date.now();
    const r = await ask(service, session, ['never'], 'timed');
    const after = Date.now();
    const [listed] = service.records.list({ request: 'timed' });
    assert.equal(typeof listed!.at, 'string');
    assert.match(listed!.at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const at = Date.parse(listed!.at);
    assert.ok(at >= before && at <= after, `${listed!.at} within [${before}, ${after}]`);
    assert.equal('atMs' in listed!, false, 'the listed record is the printed shape');
    assert.equal(r.state, 'miss');
  });

  it('lookup answers a ticket that settled while it opened without a promise (ready or miss), and a pending one with a promise', async () => {
    const { cache, service, session } = setupService();
    await cache.stage(BlockCache.key(JSON.stringify([NS.model, NS.layout, NS.blockSize]), 'a'), async () => undefined);
    const req = (hashes: string[], request: string, worldSize = 1) => ({ namespace: NS, hashes, request, rank: 0, worldSize, deadlineMs: 10_000 }) as never;
    const ready = service.lookup(session, req(['a', 'b'], 'now'));
    assert.ok(!(ready instanceof Promise), 'a settled single rank is answered at once');
    assert.deepEqual([ready.state, ready.boundary, ready.matched], ['ready', 1, 1]);
    // Answered ahead: the actor takes the OPEN once this turn's replies are out (a microtask).
    assert.equal(service.timers, 0, 'the actor has not taken the OPEN while the reply is written');
    await null;
    assert.equal(service.timers, 1, 'the ready ticket\'s lease is on the service\'s ticket clock');
    const miss = service.lookup(session, req(['x'], 'none'));
    assert.ok(!(miss instanceof Promise));
    assert.deepEqual([miss.state, miss.boundary], ['miss', 0]);
    const waiting = service.lookup(session, req(['a'], 'two-ranks', 2));
    assert.ok(waiting instanceof Promise, 'rank 0 of two waits for rank 1');
    const other = await service.lookup(session, { ...(req(['a'], 'two-ranks', 2) as object), rank: 1 } as never);
    const first = await waiting;
    assert.deepEqual([first.state, first.boundary, other.boundary], ['ready', 1, 1]);
    for (const t of [ready, first, other]) service.release(session, t.ticket);
    assert.equal(cache.usage().pinned, 0);
    assert.equal(service.timers, 0, 'released tickets left no timer');
  });

  it('a single rank whose first block is still being saved waits (pending, never a miss) and is answered when it settles', async () => {
    const { cache, service, session } = setupService();
    let finish!: () => void;
    const saving = cache.stage(BlockCache.key(JSON.stringify([NS.model, NS.layout, NS.blockSize]), 'slow'), () => new Promise<void>((r) => (finish = r)));
    let answer: Awaited<ReturnType<typeof ask>> | null = null;
    void ask(service, session, ['slow'], 'waits').then((r) => (answer = r));
    await tick();
    assert.equal(answer, null, 'not answered while the block is staging');
    finish();
    await saving;
    await tick();
    assert.deepEqual([answer!.state, answer!.boundary], ['ready', 1]);
    service.release(session, answer!.ticket);
    assert.equal(cache.usage().pinned, 0);
  });
});

describe('runtime/service: saves larger than DRAM', () => {
  it('stream through a DRAM tier of one slot into the SSD tier: every block stored and served', async () => {
    const ssd = new SsdTier({ dir: tempDir('one-slot'), slotBytes: BLOCK, slots: 8 });
    await ssd.preallocation;
    const cache = new BlockCache(new DramArena(BLOCK, 1), ssd);
    const service = new CacheService(cache, { leaseMs: 60_000, maxTickets: 64, records: 64 }, null, quiet);
    const session = new Session(1, 'spec', { engine: 'vllm', version: 'x' });
    const held = heldPages(4, cache);
    session.pages = held.pages;
    const hashes = ['s0', 's1', 's2', 's3'];
    assert.deepEqual((await service.save(session, { namespace: NS, hashes, pages: [0, 1, 2, 3] })).blocks, ['stored', 'stored', 'stored', 'stored']);
    const t = await service.lookup(session, { namespace: NS, hashes, request: 'r', rank: 0, worldSize: 1, deadlineMs: 10_000 } as never);
    assert.deepEqual([t.state, t.boundary, t.tiers.dram + t.tiers.ssd], ['ready', 4, 4]);
    service.release(session, t.ticket);
    await ssd.close();
  });

  it('a restore from the SSD tier streams through a DRAM tier of one slot: every block restored', async () => {
    const dir = tempDir('one-slot-restore');
    const bytes = (i: number) => Buffer.alloc(BLOCK, 0x40 + i);
    {
      const ssd = new SsdTier({ dir, slotBytes: BLOCK, slots: 8 });
      await ssd.preallocation;
      const cache = new BlockCache(new DramArena(BLOCK, 8), ssd);
      for (let i = 0; i < 4; i++) {
        const k = BlockCache.key(JSON.stringify([NS.model, NS.layout, NS.blockSize]), `r${i}`);
        await cache.stage(k, async (into) => void bytes(i).copy(into));
        assert.equal((await cache.persist([k])).get(k), 'persisted');
      }
      await ssd.close();
    }
    const ssd = new SsdTier({ dir, slotBytes: BLOCK, slots: 8 });
    const cache = new BlockCache(new DramArena(BLOCK, 1), ssd);
    const service = new CacheService(cache, { leaseMs: 60_000, maxTickets: 64, records: 64 }, null, quiet);
    const session = new Session(1, 'spec', { engine: 'vllm', version: 'x' });
    const landed: Buffer[] = [];
    session.pages = { pages: 4, readPage: async () => undefined, writePages: async (into: number[], from: Buffer[]) => into.forEach((p, k) => (landed[p] = Buffer.from(from[k]!))), setFlag: async () => undefined, close: () => undefined } as unknown as PageFile;
    const t = await service.lookup(session, { namespace: NS, hashes: ['r0', 'r1', 'r2', 'r3'], request: 'r', rank: 0, worldSize: 1, deadlineMs: 10_000 } as never);
    assert.deepEqual(t.tiers, { dram: 0, ssd: 4 });
    const r = await service.restore(session, { ticket: t.ticket, pages: [0, 1, 2, 3] });
    assert.deepEqual(r, { state: 'done', blocks: ['restored', 'restored', 'restored', 'restored'] });
    for (let i = 0; i < 4; i++) assert.ok(landed[i]!.equals(bytes(i)), `block ${i} intact`);
    await ssd.close();
  });
});

describe('runtime/service: saves stream through windows, with one sync and one index commit per window', () => {
  const setup = async (name: string, dramSlots: number) => {
    const dir = tempDir(name);
    const ssd = new SsdTier({ dir, slotBytes: BLOCK, slots: 64 });
    await ssd.preallocation;
    const cache = new BlockCache(new DramArena(BLOCK, dramSlots), ssd);
    const service = new CacheService(cache, { leaseMs: 60_000, maxTickets: 64, records: 64 }, null, quiet);
    const session = new Session(1, 'spec', { engine: 'vllm', version: 'x' });
    session.pages = { pages: 16, readPage: async (i: number, into: Buffer) => void into.fill(0x10 + i), writePages: async () => undefined, setFlag: async () => undefined, close: () => undefined } as unknown as PageFile;
    return { dir, ssd, cache, service, session };
  };
  const hashes = Array.from({ length: 16 }, (_, i) => `w${i}`);
  const pages = hashes.map((_, i) => i);

  it('a save is answered only once its last window is committed in the index, and each window commits its puts once', async () => {
    // 16 DRAM slots: windows of 4 blocks, so four windows and four put commits.
    const { ssd, service, session } = await setup('group-commit', 16);
    const commit = ssd.index.commit.bind(ssd.index);
    const puts: number[] = [];
    let hold: (() => void) | null = null;
    ssd.index.commit = async (changes) => {
      const p = changes.filter((c) => c.type === 'put');
      if (p.length > 0) puts.push(p.length);
      // The last window's commit waits for the spec.
      if (puts.reduce((a, b) => a + b, 0) === 16 && p.length > 0) await new Promise<void>((r) => (hold = r));
      return commit(changes);
    };
    let answered = false;
    const saving = service.save(session, { namespace: NS, hashes, pages }).then((r) => ((answered = true), r));
    for (let i = 0; i < 1000 && !hold; i++) await new Promise((r) => setTimeout(r, 5));
    assert.ok(hold, `the last window reached its commit (puts so far: ${puts.join(', ')})`);
    for (let i = 0; i < 20; i++) await tick();
    assert.equal(answered, false, 'not answered before the last commit');
    (hold as unknown as () => void)();
    assert.deepEqual((await saving).blocks, hashes.map(() => 'stored'));
    assert.deepEqual(puts, [4, 4, 4, 4], 'one commit of its puts per window');
    await ssd.close();
  });

  it('a crash after a window is written but before its commit loses no answered save and serves nothing of the unanswered one', async () => {
    const { dir, ssd, cache, service, session } = await setup('crash-before-commit', 16);
    const first = await service.save(session, { namespace: NS, hashes: hashes.slice(0, 4), pages: pages.slice(0, 4) });
    assert.deepEqual(first.blocks, ['stored', 'stored', 'stored', 'stored']);
    // The second save's puts never reach the journal (the process "dies" there): its bytes are
    // written and synced, its records are not.
    const commit = ssd.index.commit.bind(ssd.index);
    let reached = false;
    ssd.index.commit = (changes) => (changes.some((c) => c.type === 'put') ? ((reached = true), new Promise<void>(() => undefined)) : commit(changes));
    let answered = false;
    void service.save(session, { namespace: NS, hashes: hashes.slice(4, 8), pages: pages.slice(4, 8) }).then(() => (answered = true));
    for (let i = 0; i < 1000 && !reached; i++) await new Promise((r) => setTimeout(r, 5));
    assert.ok(reached, 'the second save reached its commit');
    for (let i = 0; i < 20; i++) await tick();
    assert.equal(answered, false, 'not answered while its commit has not happened');
    assert.ok(ssd.counters.writeBytes >= 8 * BLOCK, 'the second save was written');
    void cache;
    // Reopen the tier from disk as a restarted Manager would.
    const again = new SsdTier({ dir, slotBytes: BLOCK, slots: 64 });
    const ns = JSON.stringify([NS.model, NS.layout, NS.blockSize]);
    for (let i = 0; i < 8; i++) assert.equal(again.index.lookup(BlockCache.key(ns, hashes[i]!)) !== undefined, i < 4, `block ${i}: ${i < 4 ? 'answered, kept' : 'unanswered, absent'}`);
    const restored = new BlockCache(new DramArena(BLOCK, 16), again);
    for (let i = 0; i < 4; i++) {
      const v = await restored.inDram(BlockCache.key(ns, hashes[i]!));
      assert.ok('slot' in v && v.slot.equals(Buffer.alloc(BLOCK, 0x10 + i)), `block ${i} intact`);
    }
    await again.close();
  });
});

describe('runtime/service: a chain that repeats a hash', () => {
  it('restored, gives back every DRAM hold it took: the blocks stay evictable and later saves find room', async () => {
    const cache = new BlockCache(new DramArena(BLOCK, 4), null);
    const service = new CacheService(cache, { leaseMs: 60_000, maxTickets: 64, records: 64 }, null, quiet);
    const s = new Session(1, 'spec', { engine: 'vllm', version: 'x' });
    s.pages = heldPages(8, cache).pages;
    const copied: number[][] = [];
    (s.pages as unknown as { writePages: (p: number[]) => Promise<void> }).writePages = async (p) => void copied.push(p);
    // A DRAM tier of 4 slots restores in windows of one block: each restore copies twice.
    assert.deepEqual((await service.save(s, { namespace: NS, hashes: ['A', 'B', 'C', 'D'], pages: [0, 1, 2, 3] })).blocks, ['stored', 'stored', 'stored', 'stored']);
    for (const h of ['A', 'B', 'C', 'D']) {
      const t = await service.lookup(s, { namespace: NS, hashes: [h, h], request: `r${h}`, rank: 0, worldSize: 1, deadlineMs: 1000 } as never);
      assert.equal(t.state, 'ready');
      assert.deepEqual((await service.restore(s, { ticket: t.ticket, pages: [4, 5] })).blocks, ['restored', 'restored']);
    }
    assert.deepEqual([...cache.blocks.values()].map((b) => [b.pins, b.dramBusy]), [[0, 0], [0, 0], [0, 0], [0, 0]]);
    // The DRAM tier is full of idle, unpinned blocks: a new save evicts one (before: dram-full).
    assert.deepEqual((await service.save(s, { namespace: NS, hashes: ['X'], pages: [6] })).blocks, ['stored']);
    assert.deepEqual(copied, [[4], [5], [4], [5], [4], [5], [4], [5]]);
  });
});

describe('runtime/service: a DRAM restore copies each window in one request', () => {
  it('blocks in DRAM go to their pages one writePages call per window (16 blocks), their bytes intact', async () => {
    const cache = new BlockCache(new DramArena(BLOCK, 64), null);
    const service = new CacheService(cache, { leaseMs: 60_000, maxTickets: 64, records: 64 }, null, quiet);
    const session = new Session(1, 'spec', { engine: 'vllm', version: 'x' });
    const calls: number[][] = [];
    const landed: Buffer[] = [];
    session.pages = {
      pages: 64,
      readPage: async (i: number, into: Buffer) => void into.fill(0x40 + i),
      writePages: async (into: number[], from: Buffer[]) => {
        calls.push([...into]);
        into.forEach((p, k) => (landed[p] = Buffer.from(from[k]!)));
      },
      setFlag: async () => undefined,
      close: () => undefined,
    } as unknown as PageFile;
    const hashes = Array.from({ length: 40 }, (_, i) => `d${i}`);
    assert.ok((await service.save(session, { namespace: NS, hashes, pages: hashes.map((_, i) => i) })).blocks.every((b) => b === 'stored'));
    const t = await service.lookup(session, { namespace: NS, hashes, request: 'r', rank: 0, worldSize: 1, deadlineMs: 10_000 } as never);
    assert.deepEqual(t.tiers, { dram: 40, ssd: 0 });
    // Block i into page 63 - i: the pages a request names, not the blocks' own order.
    const r = await service.restore(session, { ticket: t.ticket, pages: hashes.map((_, i) => 63 - i) });
    assert.equal(r.state, 'done');
    assert.deepEqual(calls.map((c) => c.length), [16, 16, 8], 'one request per window');
    assert.deepEqual(calls.flat(), hashes.map((_, i) => 63 - i));
    for (let i = 0; i < 40; i++) assert.ok(landed[63 - i]!.equals(Buffer.alloc(BLOCK, 0x40 + i)), `block ${i} in page ${63 - i}`);
    assert.equal(cache.usage().pinned, 0, 'the leases went with the restore');
  });
});

describe('runtime/service: a save fills the lookups\' key memo', () => {
  it('a lookup of a chain just saved derives none of its keys again', async () => {
    const derive = BlockCache.key;
    let derived = 0;
    BlockCache.key = (namespace: string, blockHash: string) => {
      derived++;
      return derive(namespace, blockHash);
    };
    try {
      const cache = new BlockCache(new DramArena(BLOCK, 8), null);
      const service = new CacheService(cache, { leaseMs: 60_000, maxTickets: 64, records: 64 }, null, quiet);
      const session = new Session(1, 'spec', { engine: 'vllm', version: 'x' });
      session.pages = { pages: 4, readPage: async (i: number, into: Buffer) => void into.fill(i), writePages: async () => undefined, setFlag: async () => undefined, close: () => undefined } as unknown as PageFile;
      const hashes = ['k0', 'k1', 'k2', 'k3'];
      assert.ok((await service.save(session, { namespace: NS, hashes, pages: [0, 1, 2, 3] })).blocks.every((b) => b === 'stored'));
      assert.equal(derived, 4, 'the save derived each key once');
      const t = await service.lookup(session, { namespace: NS, hashes, request: 'r', rank: 0, worldSize: 1, deadlineMs: 10_000 } as never);
      assert.equal(t.boundary, 4);
      assert.equal(derived, 4, 'the lookup found every key in the memo');
      service.release(session, t.ticket);
    } finally {
      BlockCache.key = derive;
    }
  });
});
