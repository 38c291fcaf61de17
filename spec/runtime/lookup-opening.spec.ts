import assert from 'node:assert/strict';
import { SimulatedClock, createActor } from 'xstate';
import { BlockCache } from '../../engine/runtime/catalog/index.js';
import { OpeningTable, TICKET_FINAL, lookupTicketMachine, type TicketEvent, type TicketState } from '../../engine/runtime/lifecycles/index.js';
import type { Logger } from '../../engine/runtime/log/index.js';
import { CacheService } from '../../engine/runtime/service/index.js';
import { Session } from '../../engine/runtime/session/index.js';
import { DramArena } from '../../engine/runtime/tiers/index.js';

const OPEN = { type: 'OPEN', deadlineMs: 60_000 } as const satisfies TicketEvent;
const NS = { model: 'm', layout: 'l', blockSize: 16 };
const NS_ID = JSON.stringify([NS.model, NS.layout, NS.blockSize]);

/** An actor driven into `state` through the machine's own events (the lease on a simulated clock). */
function actorIn(state: string) {
  const clock = new SimulatedClock();
  const actor = createActor(lookupTicketMachine, { clock, input: { effects: { settle: () => undefined, releaseAll: () => undefined }, leaseMs: 1_000 } }).start();
  const drive: Record<string, (() => void)[]> = {
    idle: [],
    miss: [() => actor.send({ ...OPEN, agreed: 0 })],
    released: [() => actor.send({ ...OPEN, agreed: 2 }), () => actor.send({ type: 'RELEASE' })],
    timedOut: [() => actor.send(OPEN), () => actor.send({ type: 'DEFER' })],
    cancelled: [() => actor.send(OPEN), () => actor.send({ type: 'CANCEL' })],
    expired: [() => actor.send({ ...OPEN, agreed: 2 }), () => clock.increment(1_001)],
    consumed: [() => actor.send({ ...OPEN, agreed: 2 }), () => actor.send({ type: 'CONSUME' }), () => actor.send({ type: 'CONSUMED' })],
    pending: [() => actor.send(OPEN)],
    ready: [() => actor.send({ ...OPEN, agreed: 2 })],
    restoring: [() => actor.send({ ...OPEN, agreed: 2 }), () => actor.send({ type: 'CONSUME' })],
  };
  for (const step of drive[state]!) step();
  assert.equal(actor.getSnapshot().value, state, `driven into ${state}`);
  return actor;
}

const FROM = ['idle', ...TICKET_FINAL, 'pending', 'ready', 'restoring'];
const AGREED = [0, 1, 2, 7, 1023, 65_535];

describe('runtime/lifecycles: the opening table answers what the ticket actor then does', () => {

  it('for every state an actor can be in and every agreed boundary class, the table names the state the actor then takes', () => {
    const table = new OpeningTable();
    for (const from of FROM) {
      for (const agreed of AGREED) {
        for (const deadlineMs of [0, 1, 60_000]) {
          const actor = actorIn(from);
          const said = table.target(actor.getSnapshot(), agreed);
          actor.send({ type: 'OPEN', deadlineMs, agreed });
          assert.equal(said, actor.getSnapshot().value, `${from} + OPEN agreed ${agreed}, deadline ${deadlineMs}`);
          actor.stop();
        }
      }
    }
  });

  it('an idle or ended actor opens a ticket ready for a boundary above 0 and a miss for 0; an open ticket ignores the OPEN', () => {
    const table = new OpeningTable();
    for (const from of ['idle', ...TICKET_FINAL]) {
      assert.equal(table.target(actorIn(from).getSnapshot(), 3), 'ready', from);
      assert.equal(table.target(actorIn(from).getSnapshot(), 0), 'miss', from);
    }
    for (const from of ['pending', 'ready', 'restoring']) assert.equal(table.target(actorIn(from).getSnapshot(), 3), from, `${from} keeps its ticket`);
  });

  it('from a state alone (an actor on the ticket worker, known by what it reported), it names what the actor in that state then does', () => {
    for (const from of FROM) {
      for (const agreed of AGREED) {
        const actor = actorIn(from);
        const said = new OpeningTable().targetOf(from as TicketState, agreed);
        actor.send({ type: 'OPEN', deadlineMs: 60_000, agreed });
        assert.equal(said, actor.getSnapshot().value, `${from} + OPEN agreed ${agreed}`);
        actor.stop();
      }
    }
  });

  it('from a state alone, it names where a RELEASE or a CANCEL takes the actor (what the history says before the worker reports)', () => {
    const table = new OpeningTable();
    const seen = new Set<string>();
    for (const from of FROM) {
      for (const type of ['RELEASE', 'CANCEL'] as const) {
        const actor = actorIn(from);
        const said = table.after(from as TicketState, type);
        actor.send({ type });
        assert.equal(said, actor.getSnapshot().value, `${from} + ${type}`);
        assert.equal(table.after(from as TicketState, type), said, 'the same when remembered');
        seen.add(`${from}>${said}`);
        actor.stop();
      }
    }
    assert.ok(seen.has('ready>released') && seen.has('pending>cancelled') && seen.has('restoring>restoring'), [...seen].join(' '));
  });

  it('runs no effect of the machine while it looks ahead, and stores at most its capacity', () => {
    let effects = 0;
    const actor = createActor(lookupTicketMachine, { input: { effects: { settle: () => void effects++, releaseAll: () => void effects++ }, leaseMs: 1_000 } }).start();
    const table = new OpeningTable(2);
    for (const agreed of [1, 2, 3, 4]) assert.equal(table.target(actor.getSnapshot(), agreed), 'ready');
    assert.equal(effects, 0, 'settle is the actor\'s to run, not the table\'s');
    assert.equal((table as unknown as { size: number }).size, 2);
    assert.throws(() => new OpeningTable(-1), /capacity/);
    actor.stop();
  });
});

describe('runtime/service: a lookup answered ahead of its actor', () => {
  const quiet: Logger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined } as unknown as Logger;
  const setup = async (logger = quiet) => {
    const cache = new BlockCache(new DramArena(4096, 16), null);
    for (const h of ['a', 'b']) await cache.stage(BlockCache.key(NS_ID, h), async () => undefined);
    const service = new CacheService(cache, { leaseMs: 60_000, maxTickets: 64, records: 64 }, null, logger);
    const session = new Session(1, 'spec', { engine: 'vllm', version: 'x' });
    const ask = (hashes: string[], request: string) => service.lookup(session, { namespace: NS, hashes, request, rank: 0, worldSize: 1, deadlineMs: 10_000 } as never);
    return { cache, service, session, ask };
  };

  it('a release sent before the actor took the OPEN is carried out: the actor gets the OPEN first', async () => {
    const { cache, service, session, ask } = await setup();
    const r = ask(['a', 'b'], 'quick');
    assert.ok(!(r instanceof Promise));
    assert.equal(r.state, 'ready');
    assert.equal(cache.usage().pinned, 2);
    // In the same turn as the lookup, before the microtask that hands the actors their OPENs.
    assert.equal(service.release(session, r.ticket), 'released');
    assert.equal(cache.usage().pinned, 0, 'its leases went with the release');
    assert.equal(service.openTickets, 0);
    await null;
    assert.equal(cache.usage().pinned, 0, 'the late OPEN hand-off did not reopen it');
    assert.equal(service.records.list({ request: 'quick' })[0]!.state, 'released');
  });

  it('with an early answer, the reply goes out before the ticket is filed, and the same call files it (record, tables, leases) before it returns', async () => {
    for (const where of ['main', 'worker'] as const) {
      const cache = new BlockCache(new DramArena(4096, 16), null);
      for (const h of ['a', 'b']) await cache.stage(BlockCache.key(NS_ID, h), async () => undefined);
      const service = new CacheService(cache, { leaseMs: 60_000, maxTickets: 64, records: 64, ticketActors: where }, null, quiet);
      await service.ready;
      const session = new Session(1, 'spec', { engine: 'vllm', version: 'x' });
      const seen: { state: string; boundary: number | null; tiers: unknown; filed: boolean; pinned: number; records: number }[] = [];
      const returned = service.lookup(session, { namespace: NS, hashes: ['a', 'b', 'c'], request: 'early', rank: 0, worldSize: 1, deadlineMs: 10_000 } as never, (r) => {
        seen.push({ state: r.state, boundary: r.boundary, tiers: r.tiers, filed: session.tickets.has(r.ticket), pinned: cache.usage().pinned, records: service.records.list({ request: 'early' }).length });
        // The grant a ready ticket's reply carries is the one its session then admits.
        assert.equal(session.tickets.grantAhead(r.ticket), session.tickets.grantAhead(r.ticket));
      });
      assert.equal(returned, null, `${where}: answered through the early callback`);
      assert.deepEqual([...seen], [{ state: 'ready', boundary: 2, tiers: { dram: 2, ssd: 0 }, filed: false, pinned: 0, records: 0 }], `${where}: the reply before the bookkeeping`);
      const [record] = service.records.list({ request: 'early' });
      assert.equal(record!.state, 'ready', `${where}: the history says what the client was told`);
      assert.equal(cache.usage().pinned, 2, `${where}: its leases taken in the same call`);
      assert.equal(service.openTickets, 1);
      const id = record!.ticket;
      assert.ok(session.tickets.has(id));
      const grant = session.tickets.grant(id)!;
      assert.ok(session.tickets.admits(id, grant), `${where}: the early grant is the ticket's`);
      const released = await service.release(session, id);
      assert.equal(released, 'released');
      assert.equal(cache.usage().pinned, 0);
      // A miss is answered early too; a lookup that must wait (ranks) is not.
      const miss = service.lookup(session, { namespace: NS, hashes: ['z'], request: 'early-miss', rank: 0, worldSize: 1, deadlineMs: 10_000 } as never, (r) => {
        seen.push({ state: r.state, boundary: r.boundary, tiers: r.tiers, filed: session.tickets.has(r.ticket), pinned: 0, records: 0 });
      });
      assert.equal(miss, null);
      assert.equal(seen[1]!.state, 'miss');
      const ranked = service.lookup(session, { namespace: NS, hashes: ['a'], request: 'ranked', rank: 0, worldSize: 2, deadlineMs: 10_000 } as never, () => assert.fail('a pending lookup is not answered early'));
      assert.ok(ranked instanceof Promise);
      await session.close();
      await service.close();
    }
  });

  it('a reply whose write throws still leaves its ticket filed, and the session closing gives back its leases and its actor', async () => {
    const { cache, service, session } = await setup();
    const req = { namespace: NS, hashes: ['a', 'b'], request: 'throws', rank: 0, worldSize: 1, deadlineMs: 10_000 } as never;
    assert.throws(() => service.lookup(session, req, () => {
      throw new TypeError('write defect');
    }), /write defect/);
    assert.equal(service.openTickets, 1, 'filed though the reply failed');
    assert.equal(cache.usage().pinned, 2);
    await session.close();
    assert.equal(cache.usage().pinned, 0);
    assert.equal(service.openTickets, 0);
  });

  it('the session closing before the hand-off cancels the ticket through its actor (no lease left)', async () => {
    const { cache, service, session, ask } = await setup();
    ask(['a'], 'closing');
    await session.close();
    assert.equal(cache.usage().pinned, 0);
    assert.equal(service.openTickets, 0);
  });

  it('counts the lookups answered ahead, and a ticket whose actor went elsewhere is logged and follows its actor', async () => {
    const logged: unknown[] = [];
    const logger = { ...quiet, error: (event: string, fields: unknown) => void logged.push([event, fields]) } as unknown as Logger;
    const { cache, service, session, ask } = await setup(logger);
    const fine = ask(['a', 'b'], 'fine') as { ticket: number; state: string };
    await null;
    assert.deepEqual(service.ahead, { answered: 1, mismatched: 0 });
    service.release(session, fine.ticket);
    // A table that is wrong (what a guard reading more than `agreed` would make it): the reply said miss.
    (service as unknown as { openings: { target: () => string } }).openings.target = () => 'miss';
    const wrong = ask(['a', 'b'], 'wrong') as { ticket: number; state: string };
    assert.equal(wrong.state, 'miss');
    await null;
    assert.deepEqual(service.ahead, { answered: 2, mismatched: 1 });
    assert.deepEqual(logged, [['lookup-answer-mismatch', { ticket: wrong.ticket, session: 1, answered: 'miss', actual: 'ready' }]]);
    const [record] = service.records.list({ request: 'wrong' });
    assert.equal(record!.state, 'ready', 'the history says what the actor did');
    assert.equal(cache.usage().pinned, 2, 'the actor holds its leases until released or expired');
    assert.equal(service.release(session, wrong.ticket), 'released');
    assert.equal(cache.usage().pinned, 0);
  });

  it('a ticket whose hand-off throws is cancelled with its leases given back, and the others of its turn still get theirs', async () => {
    const logged: string[] = [];
    const logger = { ...quiet, error: (event: string) => void logged.push(event) } as unknown as Logger;
    const { cache, service, session, ask } = await setup(logger);
    const bad = ask(['a', 'b'], 'bad') as { ticket: number };
    const good = ask(['a'], 'good') as { ticket: number };
    const open = (service as unknown as { tickets: Map<number, { open(): void }> }).tickets;
    open.get(bad.ticket)!.open = () => {
      throw new Error('injected');
    };
    assert.equal(cache.usage().pinned, 2, 'a and b, leased by both tickets (a twice: counted as one block)');
    await null;
    assert.deepEqual(logged, ['lookup-open-failed', 'lookup-answer-mismatch']);
    assert.equal(service.records.list({ request: 'bad' })[0]!.state, 'cancelled');
    assert.equal(service.records.list({ request: 'good' })[0]!.state, 'ready', 'the other ticket of the turn was handed its OPEN');
    assert.equal(service.openTickets, 1);
    assert.equal(service.timers, 1, 'only the good ticket\'s lease timer');
    assert.equal(cache.usage().pinned, 1, 'the bad ticket gave its leases back; a stays leased by the good one');
    assert.equal(service.release(session, good.ticket), 'released');
    assert.equal(service.timers, 0, 'no lease left to hold the process');
  });
});
