/**
 * The ticket worker's thread: pooled lookup-ticket actors (the same machine and clock the Manager
 * runs in-process), one per slot, stepped by the events the main thread pushes and reporting each
 * state and effect back. It waits in `sleepAsync`, so the actors' `after` timers run on its own
 * event loop; its garbage is collected on its own heap.
 */
import { readlinkSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { createActor, type ActorRefFrom } from 'xstate';
import { EventRing } from './event-ring.js';
import { TICKET_FINAL, lookupTicketMachine, type TicketEvent, type TicketState } from './lookup-ticket.js';
import { TicketClock } from './ticket-clock.js';
import { NAP_MS, NAP_WHILE_MS, QUIET_REPORT_MS, nextNap, TICKET_EVENT_KIND as E, TICKET_QUIET, TICKET_REPORT_KIND as R, TICKET_STATE_CODES, type TicketWorkerData } from './ticket-worker-protocol.js';

const data = workerData as TicketWorkerData;
const events = new EventRing(data.events);
const reports = new EventRing(data.reports);
const clock = new TicketClock();
const stateCode = new Map<TicketState, number>(TICKET_STATE_CODES.map((s, i) => [s, i]));
const actors: (ActorRefFrom<typeof lookupTicketMachine> | undefined)[] = new Array(data.slots).fill(undefined);
/** Each actor's subscription, dropped with it when it retires. */
const subscriptions: ({ unsubscribe(): void } | undefined)[] = new Array(data.slots).fill(undefined);
/** Blocks for a millisecond while the report ring is full (main drains it on the message it got). */
const pause = new Int32Array(new SharedArrayBuffer(4));

/** Whether the event being stepped is quiet (TICKET_QUIET): what it makes the actor do wakes nobody. */
let quiet = false;

function report(kind: number, slot: number, a = 0): void {
  while (!reports.push(kind, slot, a, 0)) {
    if (reports.wake()) parentPort!.postMessage(0);
    Atomics.wait(pause, 0, 0, 1);
  }
  // Quiet reports wait for main's next drain, unless they fill half the ring.
  if ((!quiet || reports.waiting >= reports.capacity / 2) && reports.wake()) parentPort!.postMessage(0);
}

function actorFor(slot: number): ActorRefFrom<typeof lookupTicketMachine> {
  let actor = actors[slot];
  if (actor === undefined) {
    actor = createActor(lookupTicketMachine, {
      clock,
      input: { effects: { settle: (boundary) => report(R.settle, slot, boundary), releaseAll: () => report(R.releaseAll, slot) }, leaseMs: data.leaseMs },
    });
    subscriptions[slot] = actor.subscribe({
      next: (snapshot) => report(R.state, slot, stateCode.get(snapshot.value as TicketState)!),
      error: () => {
        actors[slot] = undefined;
        report(R.error, slot);
      },
    });
    actor.start();
    actors[slot] = actor;
  }
  return actor;
}

/** The states in which an actor serves no ticket: it waits for an OPEN. */
const RESTING = new Set<TicketState>(['idle', ...TICKET_FINAL]);

const FIXED: Record<number, TicketEvent> = {
  [E.defer]: { type: 'DEFER' },
  [E.cancel]: { type: 'CANCEL' },
  [E.release]: { type: 'RELEASE' },
  [E.consume]: { type: 'CONSUME' },
  [E.consumed]: { type: 'CONSUMED' },
};

/** This thread's id in the kernel (Linux: /proc/thread-self names it), or null where none can be read. */
function kernelThreadId(): number | null {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isSafeInteger(tid) && tid > 0 ? tid : null;
  } catch {
    return null;
  }
}

let stopped = false;
function step(flagged: number, slot: number, a: number, b: number): void {
  quiet = (flagged & TICKET_QUIET) !== 0;
  try {
    stepActor(flagged & ~TICKET_QUIET, slot, a, b);
  } finally {
    quiet = false;
  }
}

function stepActor(kind: number, slot: number, a: number, b: number): void {
  if (kind === E.stop) {
    stopped = true;
    return;
  }
  if (!(slot >= 0 && slot < data.slots)) throw new RangeError(`ticket worker: slot ${slot} is outside 0..${data.slots - 1}`);
  if (kind === E.retire) {
    // Main retires only a slot whose ticket has ended here (it heard the end), so the actor rests;
    // one that does not is left serving. Unreported: main counts the slot's actor gone as it sends this.
    const actor = actors[slot];
    if (actor === undefined || !RESTING.has(actor.getSnapshot().value as TicketState)) return;
    subscriptions[slot]?.unsubscribe();
    subscriptions[slot] = undefined;
    actors[slot] = undefined;
    actor.stop();
    return;
  }
  if (kind === E.open) {
    actorFor(slot).send(b < 0 ? { type: 'OPEN', deadlineMs: a } : { type: 'OPEN', deadlineMs: a, agreed: b });
    return;
  }
  const event = kind === E.agreed ? { type: 'AGREED' as const, boundary: a } : FIXED[kind];
  if (event === undefined) throw new RangeError(`ticket worker: unknown event kind ${kind}`);
  // An event for an actor with no ticket open (its ticket has ended here, or none was opened) is
  // dropped unreported: main sent it before it heard of that end, for that ticket. Reported, its
  // state would reach the next ticket main gave the slot. Nothing but an OPEN moves such an actor.
  const actor = actors[slot];
  if (actor === undefined || RESTING.has(actor.getSnapshot().value as TicketState)) return;
  actor.send(event);
}

// The port keeps this thread alive while it waits (Atomics.waitAsync alone does not).
parentPort!.on('message', () => {});
// Main waits for this before it sends events at any rate (see TicketWorker.ready); it carries
// this thread's id in the kernel (for the operator's tools: ps, top -H, /proc), where there is one.
parentPort!.postMessage({ ready: kernelThreadId() });
void (async () => {
  let lastEvent = -Infinity;
  let nap = NAP_MS;
  while (!stopped) {
    const took = events.drain(step);
    if (took > 0) lastEvent = performance.now();
    nap = nextNap(nap, took);
    if (stopped) break;
    const idle = performance.now() - lastEvent;
    // Reports main has not drained (quiet ones: nobody was woken for them) wait at most
    // QUIET_REPORT_MS without events for main's next lookup to drain them; then main is told.
    if (idle >= QUIET_REPORT_MS && reports.waiting > 0 && reports.wake()) parentPort!.postMessage(0);
    // While events keep coming, nap (main then sends quiet ones without a wake, and they wait a
    // nap at most), a nap that found nothing followed by a longer one; after NAP_WHILE_MS without
    // any, sleep until woken.
    if (idle < NAP_WHILE_MS) await events.napAsync(nap);
    else await events.sleepAsync(reports.waiting > 0 ? QUIET_REPORT_MS : undefined);
  }
  process.exit(0);
})();
