import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { createActor } from 'xstate';
import { lookupTicketMachine, TicketClock, type TicketEvent, type TicketState } from '../../engine/runtime/lifecycles/index.js';
import { TicketWorker } from '../../engine/runtime/lifecycles/ticket-worker.js';
import { TICKET_EVENT_KIND as E, TICKET_REPORT_KIND as R, TICKET_STATE_CODES } from '../../engine/runtime/lifecycles/ticket-worker-protocol.js';

type Report = [slot: number, kind: number, value: number];
const name = ([slot, kind, value]: Report) =>
  kind === R.state ? `${slot}:${TICKET_STATE_CODES[value]}` : kind === R.settle ? `${slot}:settle(${value})` : kind === R.releaseAll ? `${slot}:releaseAll` : `${slot}:error`;

/** The same events to an in-process actor: what it does, named as the worker's reports are. */
function inProcess(events: TicketEvent[], leaseMs = 600_000): string[] {
  const out: string[] = [];
  const actor = createActor(lookupTicketMachine, { clock: new TicketClock(), input: { effects: { settle: (b) => out.push(`0:settle(${b})`), releaseAll: () => out.push('0:releaseAll') }, leaseMs } });
  actor.subscribe({ next: (s) => out.push(`0:${s.value as TicketState}`) });
  actor.start();
  for (const e of events) actor.send(e);
  actor.stop();
  return out;
}

/** Waits until `done()` holds, at most 20 s (then fails). */
async function within(done: () => boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('not within 20 s');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('runtime/lifecycles/ticket-worker: the lookup-ticket actors on a worker thread', function () {
  this.timeout(60_000);
  const open: TicketWorker[] = [];
  /** A worker whose reports are collected; `until(n)` waits for n of them. */
  const start = (slots: number, leaseMs = 600_000) => {
    const reports: Report[] = [];
    const exits: Error[] = [];
    let waiter: (() => void) | null = null;
    let want = 0;
    const w = new TicketWorker({
      slots,
      leaseMs,
      onReport: (slot, kind, value) => {
        reports.push([slot, kind, value]);
        if (waiter && reports.length >= want) waiter();
      },
      onExit: (e) => exits.push(e),
    });
    open.push(w);
    const until = (n: number, ms = 20_000) =>
      new Promise<void>((resolve, reject) => {
        if (reports.length >= n) return resolve();
        want = n;
        const t = setTimeout(() => reject(new Error(`${reports.length} of ${n} reports: ${reports.map(name).join(' ')}`)), ms);
        waiter = () => {
          clearTimeout(t);
          waiter = null;
          resolve();
        };
      });
    return { w, reports, exits, until };
  };
  afterEach(async () => {
    await Promise.all(open.splice(0).map((w) => w.close()));
  });

  it('an agreed OPEN and a RELEASE: the same effects and states, in the same order, as the actor in-process', async () => {
    const { w, reports, until } = start(4);
    await w.ready;
    w.send(0, E.open, 1000, 16);
    w.send(0, E.release);
    const expected = inProcess([{ type: 'OPEN', deadlineMs: 1000, agreed: 16 }, { type: 'RELEASE' }]);
    await until(expected.length);
    assert.deepEqual(reports.map(name), expected);
    assert.deepEqual(expected.slice(-2), ['0:releaseAll', '0:released']);
  });

  it('a retired slot (its ticket ended) loses its actor: its next OPEN makes a new one, which starts idle; an actor serving a ticket is not retired', async () => {
    const { w, reports, exits, until } = start(4);
    await w.ready;
    w.send(0, E.open, 1000, 4);
    w.send(0, E.release);
    w.send(0, E.retire);
    w.send(0, E.open, 1000, 2);
    // Slot 1 is serving: retiring it changes nothing, its RELEASE is carried out.
    w.send(1, E.open, 1000, 3);
    w.send(1, E.retire);
    w.send(1, E.release);
    const by = (slot: number) => reports.filter((r) => r[0] === slot).map(name);
    await within(() => by(0).filter((x) => x === '0:ready').length === 2 && by(1).includes('1:released'));
    await until(reports.length);
    assert.deepEqual(by(0), ['0:idle', '0:settle(4)', '0:ready', '0:releaseAll', '0:released', '0:idle', '0:settle(2)', '0:ready']);
    assert.deepEqual(by(1), ['1:idle', '1:settle(3)', '1:ready', '1:releaseAll', '1:released']);
    assert.deepEqual(exits, []);
  });

  it('its own timers run: a pending ticket times out, and a ready one expires, with no event from this thread', async () => {
    const { w, reports } = start(4, 40);
    w.send(1, E.open, 30, -1); // pending, 30 ms deadline
    w.send(2, E.open, 1000, 8); // ready, 40 ms lease
    const by = (slot: number) => reports.filter((r) => r[0] === slot).map(name);
    await within(() => by(1).includes('1:timedOut') && by(2).includes('2:expired'));
    assert.deepEqual(by(1), ['1:idle', '1:pending', '1:releaseAll', '1:timedOut']);
    assert.deepEqual(by(2), ['2:idle', '2:settle(8)', '2:ready', '2:releaseAll', '2:expired']);
  });

  it('3,000 slots each opened and released at once (6,000 events for a ring of 4,096): the rest wait in the bounded queue, and every ticket ends released', async () => {
    const { w, reports, exits } = start(3000);
    for (let s = 0; s < 3000; s++) w.send(s, E.open, 1000, 4);
    for (let s = 0; s < 3000; s++) w.send(s, E.release);
    assert.ok(w.waiting > 0, 'some events waited for room in the ring');
    const ended = () => new Set(reports.filter((r) => r[1] === R.state && TICKET_STATE_CODES[r[2]] === 'released').map((r) => r[0])).size;
    await within(() => ended() === 3000);
    assert.deepEqual(exits, []);
    assert.equal(w.waiting, 0);
  });

  it('refuses a slot outside its slots, naming it, before anything reaches the worker', async () => {
    const { w, reports } = start(2);
    await w.ready;
    for (const bad of [-1, 2, 1.5, NaN]) assert.throws(() => w.send(bad, E.open, 1000, 4), new RegExp(`slot ${bad} is outside 0\\.\\.1`));
    w.send(1, E.open, 1000, 4);
    await within(() => reports.some((r) => r[0] === 1 && r[1] === R.state && TICKET_STATE_CODES[r[2]] === 'ready'));
    assert.ok(reports.every((r) => r[0] === 0 || r[0] === 1));
  });

  it('an event for an actor serving no ticket is dropped unreported: meant for a ticket that ended there, it never reaches the next one', async () => {
    const { w, reports, until } = start(1);
    await w.ready;
    w.send(0, E.defer); // no ticket was ever opened in slot 0
    w.send(0, E.open, 1000, 0); // a miss: the ticket ends at once
    w.send(0, E.release); // sent for that ticket before main heard it ended
    w.send(0, E.open, 1000, 4); // the slot's next ticket
    await until(5);
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(reports.map(name), ['0:idle', '0:releaseAll', '0:miss', '0:settle(4)', '0:ready']);
  });

  it('events that wait while the worker starts reach it though the ones ahead of them are dropped unreported (no report would push them)', async () => {
    const { w, reports } = start(1000);
    // Before the worker runs: 4,096 fill the ring, the rest and the OPEN wait in the overflow.
    for (let i = 0; i < 5000; i++) w.send(i % 1000, E.defer);
    w.send(7, E.open, 1000, 3);
    assert.ok(w.waiting > 0);
    await within(() => reports.some((r) => r[0] === 7 && r[1] === R.state && TICKET_STATE_CODES[r[2]] === 'ready'));
    assert.equal(w.waiting, 0);
    assert.deepEqual(reports.map(name), ['7:idle', '7:settle(3)', '7:ready']);
  });

  it('a backlog several rings deep reaches the worker whole and in order, as the ring makes room and the overflow is compacted', async () => {
    const slots = 6000;
    const { w, reports } = start(slots);
    // Before the worker runs: 12,000 events, 4,096 in the ring and the rest waiting, each slot's
    // OPEN ahead of its RELEASE. The worker takes them a ring at a time; main moves the overflow's
    // head and compacts it as it goes.
    for (let s = 0; s < slots; s++) {
      w.send(s, E.open, 60_000, 1 + (s % 3));
      w.send(s, E.release);
    }
    assert.equal(w.waiting, 2 * slots - 4096);
    const released = () => reports.filter((r) => r[1] === R.state && TICKET_STATE_CODES[r[2]] === 'released').length;
    await within(() => released() === slots);
    assert.equal(w.waiting, 0);
    const bySlot = new Map<number, string[]>();
    for (const r of reports) bySlot.set(r[0], [...(bySlot.get(r[0]) ?? []), name(r).split(':')[1]!]);
    assert.equal(bySlot.size, slots);
    for (const [s, seen] of bySlot) assert.deepEqual(seen, ['idle', `settle(${1 + (s % 3)})`, 'ready', 'releaseAll', 'released'], `slot ${s}`);
  });

  it('quiet events (nobody waits for their reports) reach a sleeping worker, and their reports reach main, with no event or poll after them', async () => {
    const { w, reports } = start(4);
    await w.ready;
    await new Promise((r) => setTimeout(r, 20)); // the worker sleeps
    w.send(2, E.open, 1000, 5, true);
    w.send(2, E.release, 0, 0, true);
    await within(() => reports.length >= 5);
    assert.deepEqual(reports.map(name), ['2:idle', '2:settle(5)', '2:ready', '2:releaseAll', '2:released']);
  });

  it('naps longer as a lull goes on: after one quiet lookup it wakes a few times in the next 40 ms, not every millisecond, and still takes the next event', async function () {
    if (process.platform !== 'linux') this.skip();
    const { w, reports } = start(4);
    await w.ready;
    const tid = w.kernelThreadId;
    assert.ok(tid !== null, 'the worker names its kernel thread id');
    // Voluntary context switches of the worker thread: one per nap (or sleep) it wakes from.
    const switches = () => Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(readFileSync(`/proc/self/task/${tid}/status`, 'utf8'))![1]);
    w.send(1, E.open, 1000, 4, true);
    w.send(1, E.release, 0, 0, true);
    await within(() => reports.length >= 5);
    const before = switches();
    // Within NAP_WHILE_MS of the last event: the worker naps throughout (it does not sleep yet).
    await new Promise((r) => setTimeout(r, 40));
    const woke = switches() - before;
    // Naps of 1 ms all along woke ~40 times here; growing to 8 ms, ~8 (a loaded machine wakes it less, never more).
    assert.ok(woke <= 20, `the worker woke ${woke} times in 40 ms of a lull`);
    // A quiet event in the lull is still taken, at the end of the nap it arrives in.
    w.send(2, E.open, 1000, 3, true);
    w.send(2, E.release, 0, 0, true);
    await within(() => reports.filter((r) => r[0] === 2).length >= 5);
    assert.deepEqual(reports.filter((r) => r[0] === 2).map(name), ['2:idle', '2:settle(3)', '2:ready', '2:releaseAll', '2:released']);
  });

  it('a stream of quiet lookups and releases, with main polling as it serves each, wakes main by message a few times, not once per event', async () => {
    const { w, reports } = start(64);
    await w.ready;
    const pairs = 400;
    for (let i = 0; i < pairs; i++) {
      w.poll();
      w.send(i % 64, E.open, 1000, 3, true);
      w.send(i % 64, E.release, 0, 0, true);
      if (i % 4 === 3) await new Promise((r) => setImmediate(r));
    }
    const released = () => reports.filter((r) => r[1] === R.state && TICKET_STATE_CODES[r[2]] === 'released').length;
    await within(() => released() === pairs);
    assert.ok(w.wakes < pairs / 4, `${w.wakes} messages for ${pairs} lookups`);
  });

  it('refuses more waiting events than its slots allow (a defect of the sender), and a closed worker refuses any', async () => {
    const { w } = start(1);
    assert.throws(() => {
      for (let i = 0; i < 10_000; i++) w.send(0, E.defer);
    }, /events waiting for the worker/);
    await w.close();
    assert.throws(() => w.send(0, E.release), /closed/);
  });

  it('close() ends a worker whose report ring is full (a burst main has not drained): it does not wait on reports nobody will read', async () => {
    const { w, reports } = start(2048);
    await w.ready;
    // 2,000 tickets opened agreed and released in one turn: ~4 reports each, more than the report
    // ring holds, and main drains none of them before it closes (no turn passes).
    for (let slot = 0; slot < 2000; slot++) {
      w.send(slot, E.open, 1000, 16);
      w.send(slot, E.release);
    }
    const closed = w.close().then(() => 'closed');
    const timeout = new Promise<string>((resolve) => setTimeout(() => resolve('still open after 5 s'), 5000).unref());
    assert.equal(await Promise.race([closed, timeout]), 'closed');
    assert.equal(reports.length, 0, 'a closing worker reports nothing more');
  });

  it('a worker that dies is reported (onExit), and close() after it resolves', async () => {
    const { w, exits } = start(2);
    w.send(0, 99); // an unknown event kind: a defect, the thread throws
    for (let i = 0; i < 200 && exits.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(exits.length, 1);
    await w.ready; // it had started: ready stays resolved
    assert.match(exits[0]!.message, /unknown event kind 99|exited with code/);
    await w.close();
  });

  it('ready settles for a worker closed at once (it posts ready before it reads the stop), never left pending', async () => {
    const { w } = start(2);
    await w.close();
    assert.equal(await w.ready.then(() => 'started', (e: Error) => e.message), 'started');
  });
});
