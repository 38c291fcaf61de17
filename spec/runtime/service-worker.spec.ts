import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BlockCache } from '../../engine/runtime/catalog/index.js';
import type { Logger } from '../../engine/runtime/log/index.js';
import type { PageFile } from '../../engine/runtime/pages/index.js';
import { CacheService, RequestError, type LookupReply } from '../../engine/runtime/service/index.js';
import { Session } from '../../engine/runtime/session/index.js';
import { DramArena } from '../../engine/runtime/tiers/index.js';
import { REPO } from './support.js';

const BLOCK = 4096;
const NS = { model: 'm', layout: 'l', blockSize: 16 };
const NS_ID = JSON.stringify([NS.model, NS.layout, NS.blockSize]);

/** Waits until `done()` holds (polling), at most 10 s. */
async function within(done: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`not within 10 s: ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** Blocks this thread (the ticket worker runs on): what a busy main thread does to the reports. */
function busy(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until);
}

/** Pages whose copies land when the spec lets them (a restore in flight); records what landed. */
function heldPages(count: number) {
  const landing: (() => void)[] = [];
  const written: number[] = [];
  const pages = {
    pages: count,
    readPage: async (i: number, into: Buffer) => void into.fill(i + 1),
    writePages: (into: number[]) =>
      new Promise<void>((resolve) =>
        landing.push(() => {
          written.push(...into);
          resolve();
        }),
      ),
    setFlag: async () => undefined,
    close: () => undefined,
  };
  return { pages: pages as unknown as PageFile, landing, written };
}

describe('runtime/service: the ticket actors on the ticket worker (serve --ticket-actors worker)', function () {
  this.timeout(30_000);
  const services: CacheService[] = [];
  afterEach(async () => {
    await Promise.all(services.splice(0).map((s) => s.close()));
  });
  const setup = async (options: { leaseMs?: number; logger?: Logger; dramSlots?: number; maxTickets?: number } = {}) => {
    const logged: string[] = [];
    const logger = options.logger ?? ({ debug: () => undefined, info: () => undefined, warn: () => undefined, error: (event: string) => void logged.push(event) } as unknown as Logger);
    const cache = new BlockCache(new DramArena(BLOCK, options.dramSlots ?? 16), null);
    for (const h of ['a', 'b', 'c', 'd']) await cache.stage(BlockCache.key(NS_ID, h), async (into) => void into.fill(h.charCodeAt(0)));
    const service = new CacheService(cache, { leaseMs: options.leaseMs ?? 60_000, maxTickets: options.maxTickets ?? 64, records: 256, ticketActors: 'worker' }, null, logger);
    services.push(service);
    await service.ready;
    const session = new Session(1, 'spec', { engine: 'vllm', version: 'x' });
    const ask = (hashes: string[], request: string, rank = 0, worldSize = 1) => service.lookup(session, { namespace: NS, hashes, request, rank, worldSize, deadlineMs: 10_000 } as never);
    const open = () => (service as unknown as { tickets: Map<number, unknown> }).tickets.size;
    const record = (request: string) => service.records.list({ request })[0]!;
    /** A ticket's state as the worker's reports have made it (its record is written ahead of them). */
    const reported = (ticket: number) => (service as unknown as { tickets: Map<number, { state: string }> }).tickets.get(ticket)?.state;
    return { cache, service, session, ask, open, record, reported, logged };
  };

  it('a settled lookup is answered at once; a RELEASE gives its leases back at once and answers the state the actor then reports', async () => {
    const { cache, service, session, ask, open, record, reported } = await setup();
    assert.equal(service.ticketActors, 'worker');
    const r = ask(['a', 'b', 'x'], 'one') as LookupReply;
    assert.ok(!(r instanceof Promise), 'answered in the same turn, ahead of the worker');
    assert.deepEqual([r.state, r.boundary, r.matched], ['ready', 2, 2]);
    assert.equal(cache.usage().pinned, 2);
    await within(() => reported(r.ticket) === 'ready', 'the worker reported the OPEN');
    const released = service.release(session, r.ticket);
    assert.ok(released instanceof Promise, 'answered once the worker has stepped the actor');
    assert.equal(cache.usage().pinned, 0, 'the leases went with the RELEASE (every path of the actor from there gives them back)');
    assert.equal(service.openTickets, 0, 'no longer open for the client');
    assert.equal(await released, 'released');
    assert.equal(open(), 0);
    assert.equal(record('one').state, 'released');
    assert.equal(service.xstate.actors, 1);
    assert.deepEqual(service.ahead, { answered: 1, mismatched: 0 });
  });

  /**
   * Opens `n` tickets and releases them as the binary RELEASE does (quiet: nobody is answered),
   * then blocks this thread, so that no message of the worker's is taken in, until the worker has
   * stepped them all and its reports wait in the ring (it is woken as main's timer would).
   */
  const endedUnheard = (t: Awaited<ReturnType<typeof setup>>, n: number): number => {
    const worker = (t.service as unknown as { runner: { worker: { events: { wake(): boolean }; reports: { waiting: number } } } }).runner.worker;
    for (let i = 0; i < n; i++) {
      const r = t.ask(['a', 'b'], `quiet-${i}`) as LookupReply;
      t.service.release(t.session, r.ticket, false);
    }
    worker.events.wake();
    const deadline = Date.now() + 10_000;
    let last = -1;
    let steadySince = Date.now();
    while (Date.now() < deadline) {
      const waiting = worker.reports.waiting;
      if (waiting !== last) [last, steadySince] = [waiting, Date.now()];
      else if (waiting > 0 && Date.now() - steadySince >= 50) return waiting;
    }
    throw new Error(`the worker did not report ${n} tickets within 10 s`);
  };

  it("the history says what the client was told and what its RELEASE or CANCEL did at once, before the worker reports (orbitkv requests agrees with the leases)", async () => {
    const { cache, service, session, ask, record } = await setup();
    const r = ask(['a', 'b'], 'told') as LookupReply;
    const m = ask(['zz'], 'missed') as LookupReply;
    const c = ask(['a'], 'cancelled') as LookupReply;
    // Nothing of the worker's reports is taken in within this turn.
    assert.deepEqual([record('told').state, record('told').boundary, record('missed').state, record('missed').boundary], ['ready', 2, 'miss', 0]);
    service.release(session, r.ticket, false);
    const cancelled = service.cancel(session, c.ticket);
    assert.equal(record('told').state, 'released', 'the binary RELEASE (nobody is answered): written as sent');
    assert.equal(record('cancelled').state, 'released', 'a ready ticket cancelled is released, as the machine says');
    assert.equal(cache.usage().pinned, 0);
    assert.equal(await cancelled, 'released');
    await within(() => service.openTickets === 0 && (service as unknown as { tickets: Map<number, unknown> }).tickets.size === 0, 'the worker reported');
    assert.deepEqual([record('told').state, record('missed').state, record('cancelled').state], ['released', 'miss', 'released'], 'the actors agree');
    assert.equal(m.state, 'miss');
  });

  it('at most 1,024 actors wait at rest on the worker: a burst of 1,100 tickets leaves 1,024 alive, and a retired slot serves its next ticket with a new actor', async () => {
    const { service, session, ask, record, reported } = await setup({ maxTickets: 2048 });
    const burst = Array.from({ length: 1100 }, (_, i) => ask(['a', 'b'], `burst-${i}`) as LookupReply);
    assert.equal(service.xstate.actors, 1100, 'one actor per ticket open');
    for (const r of burst) service.release(session, r.ticket, false);
    await within(() => (service as unknown as { tickets: Map<number, unknown> }).tickets.size === 0, 'every ticket reported ended');
    assert.equal(service.xstate.actors, 1024, 'the rest were retired');
    // More tickets than the actors at rest: the last ones take retired slots, whose actors are made anew.
    const again = Array.from({ length: 1030 }, (_, i) => ask(['a'], `again-${i}`) as LookupReply);
    assert.equal(service.xstate.actors, 1030);
    const last = again[1029]!;
    await within(() => reported(last.ticket) === 'ready', 'a retired slot served a new ticket');
    assert.equal(await service.release(session, last.ticket), 'released');
    assert.equal(record('again-1029').state, 'released');
    for (const r of again.slice(0, 1029)) service.release(session, r.ticket, false);
    await within(() => service.openTickets === 0 && (service as unknown as { tickets: Map<number, unknown> }).tickets.size === 0, 'all ended');
    assert.equal(service.xstate.actors, 1024);
  });

  it("a lookup takes in the worker's reports after its reply is written, not before it; with the table full, before it (its room)", async () => {
    const t = await setup();
    assert.ok(endedUnheard(t, 8) >= 16, 'each ticket reported its state and its end');
    assert.equal(t.open(), 8, 'ended on the worker, not heard yet');
    const r = t.ask(['a'], 'after') as LookupReply;
    assert.equal(r.state, 'ready');
    assert.equal(t.open(), 9, 'answered before the reports were taken in');
    await Promise.resolve();
    assert.equal(t.open(), 1, 'taken in as soon as the lookup had returned (a microtask)');
    assert.equal(t.record('quiet-7').state, 'released');

    const full = await setup({ maxTickets: 4 });
    endedUnheard(full, 4);
    assert.equal(full.open(), 4, 'the table is full of tickets that ended on the worker');
    const served = full.ask(['a'], 'room') as LookupReply;
    assert.equal(served.state, 'ready', 'the reports were taken in first, so the lookup had room');
    assert.equal(full.open(), 1);
  });

  it('a ticket released again, cancelled after, or named a thousand times is unknown: nothing more reaches the worker for it', async () => {
    const { service, session, ask, open } = await setup();
    const r = ask(['a'], 'again') as LookupReply;
    const first = service.release(session, r.ticket);
    for (let i = 0; i < 1000; i++) {
      assert.throws(() => service.release(session, r.ticket), (e: unknown) => e instanceof RequestError && e.reason === 'unknown-ticket');
      assert.throws(() => service.cancel(session, r.ticket), (e: unknown) => e instanceof RequestError && e.reason === 'unknown-ticket');
    }
    assert.equal(await first, 'released');
    assert.equal(open(), 0);
    const next = ask(['a', 'b'], 'next') as LookupReply;
    assert.equal(next.state, 'ready');
    assert.equal(await service.release(session, next.ticket), 'released');
  });

  it('a miss is answered ended: releasing it is refused as unknown, as in-process', async () => {
    const { service, session, ask, open } = await setup();
    const r = ask(['zz'], 'miss') as LookupReply;
    assert.deepEqual([r.state, r.boundary], ['miss', 0]);
    assert.throws(() => service.release(session, r.ticket), /no open ticket/);
    await within(() => open() === 0, 'the miss reported');
  });

  it('two ranks agree through the worker: both ready with the smaller boundary, each answered when its actor reports', async () => {
    const { cache, service, session, ask } = await setup();
    const r0 = ask(['a', 'b', 'c'], 'two', 0, 2);
    assert.ok(r0 instanceof Promise);
    const r1 = ask(['a', 'b'], 'two', 1, 2);
    const [a, b] = await Promise.all([r0, r1]);
    assert.deepEqual([a.state, a.boundary, b.state, b.boundary], ['ready', 2, 'ready', 2]);
    assert.equal(cache.usage().pinned, 2, 'the leases beyond the agreed boundary went (settle)');
    assert.equal(await service.release(session, a.ticket), 'released');
    assert.equal(await service.release(session, b.ticket), 'released');
    assert.equal(cache.usage().pinned, 0);
  });

  it('a pending ticket is cancelled through the worker (cancelled, never a miss); a RELEASE of it is answered pending and sends nothing', async () => {
    const { cache, service, session, ask, record } = await setup();
    const waiting = ask(['a'], 'alone', 0, 2) as Promise<LookupReply>;
    const id = session.tickets.lastAdded!;
    assert.equal(service.release(session, id), 'pending');
    assert.equal(await service.cancel(session, id), 'cancelled');
    assert.equal((await waiting).state, 'cancelled');
    assert.equal(record('alone').state, 'cancelled');
    assert.equal(cache.usage().pinned, 0);
  });

  it('a restore waits for the actor to take the CONSUME, restores, and the ticket ends consumed with its leases given back', async () => {
    const { cache, service, session, ask, record, open } = await setup();
    const held = heldPages(4);
    session.pages = held.pages;
    const r = ask(['a', 'b'], 'restore') as LookupReply;
    const restoring = service.restore(session, { ticket: r.ticket, pages: [0, 1] });
    assert.equal(service.release(session, r.ticket), 'restoring', 'a consumed ticket takes no RELEASE');
    await within(() => held.landing.length > 0, 'the copy started');
    assert.equal(cache.usage().pinned, 2, 'the restore holds the leases');
    held.landing.shift()!();
    assert.deepEqual(await restoring, { state: 'done', blocks: ['restored', 'restored'] });
    // As the restore answers, before the worker reports the CONSUMED: the leases are back and the
    // ticket is no longer open (what a STATUS right after the answer, or after the session closed, says).
    assert.equal(cache.usage().pinned, 0, 'the leases go as CONSUMED is sent');
    assert.equal(service.openTickets, 0, 'no longer open for its client');
    await assert.rejects(Promise.resolve(service.restore(session, { ticket: r.ticket, pages: [0, 1] })), (e: unknown) => e instanceof RequestError && e.reason === 'unknown-ticket', 'a consumed ticket cannot be named again');
    await within(() => open() === 0 && record('restore').state === 'consumed', 'consumed reported');
    assert.equal(cache.usage().pinned, 0);
  });

  it('a restore of a ticket whose lease expired on the worker before its CONSUME arrived is refused, and writes no page', async () => {
    const { cache, service, session, ask, record, reported } = await setup({ leaseMs: 20 });
    const held = heldPages(4);
    session.pages = held.pages;
    const r = ask(['a', 'b'], 'late') as LookupReply;
    assert.equal(r.state, 'ready');
    await within(() => reported(r.ticket) === 'ready', 'the worker took the OPEN');
    // The worker expires it meanwhile; its report waits until this thread is free again.
    busy(150);
    await assert.rejects(Promise.resolve(service.restore(session, { ticket: r.ticket, pages: [0, 1] })), (e: unknown) => e instanceof RequestError && e.reason === 'ticket-not-ready' && /is expired/.test(e.message));
    assert.deepEqual(held.written, []);
    assert.equal(held.landing.length, 0, 'no copy was started');
    assert.equal(record('late').state, 'expired');
    assert.equal(cache.usage().pinned, 0);
    // The slot serves the next ticket (which expires in its turn: the worker-level spec shows the
    // CONSUME sent for the expired one reaches no later ticket).
    const next = ask(['a'], 'next') as LookupReply;
    assert.equal(next.state, 'ready');
    await within(() => record('next').state === 'expired', 'the next ticket ran its own lease');
  });

  it('the session closing cancels its pending and ready tickets through the worker: every lease goes', async () => {
    const { cache, service, session, ask, open } = await setup();
    const pending = ask(['a'], 'p', 0, 2) as Promise<LookupReply>;
    ask(['a', 'b', 'c'], 'r');
    assert.equal(cache.usage().pinned, 3);
    await session.close();
    assert.equal(cache.usage().pinned, 0);
    assert.equal(service.openTickets, 0);
    assert.equal((await pending).state, 'cancelled');
    await within(() => open() === 0, 'both ended');
  });

  it('a worker that dies: its tickets end cancelled with their leases back, a restore under way keeps its leases until it drains, and a new worker serves', async () => {
    const { cache, service, session, ask, record, reported, logged, open } = await setup();
    const held = heldPages(4);
    session.pages = held.pages;
    const ready = ask(['a', 'b'], 'ready') as LookupReply;
    const restored = ask(['c', 'd'], 'restored') as LookupReply;
    const restoring = service.restore(session, { ticket: restored.ticket, pages: [0, 1] });
    await within(() => held.landing.length > 0, 'the copy started');
    await within(() => reported(ready.ticket) === 'ready', 'reported ready');
    assert.equal(cache.usage().pinned, 4);
    const runner = (service as unknown as { runner: { worker: { worker: { terminate(): Promise<number> } } } }).runner;
    await runner.worker.worker.terminate();
    await within(() => logged.includes('ticket-worker-exited'), 'the exit logged');
    assert.equal(record('ready').state, 'cancelled');
    assert.equal(cache.usage().pinned, 2, 'the restore still holds c and d');
    held.landing.shift()!();
    assert.deepEqual(await restoring, { state: 'done', blocks: ['restored', 'restored'] });
    assert.equal(cache.usage().pinned, 0, 'given back once the restore drained');
    assert.equal(record('restored').state, 'consumed');
    assert.equal(open(), 0);
    await service.ready;
    const after = ask(['a'], 'after') as LookupReply;
    assert.equal(after.state, 'ready');
    assert.equal(await service.release(session, after.ticket), 'released');
  });

  it('a worker that keeps dying (5 exits in 10 s) is not restarted again: lookups are refused, naming why and the fix', async () => {
    const { service, session, ask, logged } = await setup();
    const runner = (service as unknown as { runner: { worker: { worker: { terminate(): Promise<number> } } } }).runner;
    for (let i = 1; i <= 5; i++) {
      await service.ready.catch(() => undefined);
      await runner.worker.worker.terminate();
      await within(() => logged.filter((e) => e === 'ticket-worker-exited').length === i, `exit ${i} logged`);
      if (i < 5) assert.equal((ask(['a'], `alive-${i}`) as LookupReply).state, 'ready', `restarted after exit ${i}`);
    }
    assert.throws(
      () => ask(['a'], 'refused'),
      (e: unknown) => e instanceof RequestError && e.reason === 'tickets-unavailable' && /exited 5 times in 10 s/.test(e.message) && /restart the Manager/.test(e.message),
    );
    assert.equal(service.openTickets, 0, 'the tickets of every lost worker ended');
    assert.equal(session.tickets.size, 0);
  });

  it('`orbitkv serve --ticket-actors` other than main or worker is a usage error (exit 2) naming the value, before anything starts', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'engine/cli/main.ts', 'serve', '--socket', join(tmpdir(), `okv-actors-${process.pid}`, 'm.sock'), '--ticket-actors', 'threads'], { cwd: REPO, encoding: 'utf8', timeout: 30_000 });
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /--ticket-actors 'threads' is not main or worker/);
  });
});
