/**
 * Where the service's lookup-ticket actors run: on the main thread, stepped by `send` as the
 * service calls it (`MainTickets`), or on a worker thread, stepped in the order the main thread
 * sent them their events and reporting back what they did (`WorkerTickets`). Either way each
 * actor is the same machine with the same `after` deadlines and lease, it serves one ticket at a
 * time, and its states and effects reach the ticket in the order the actor made them.
 *
 * What differs is when: in-process, a ticket's state has changed when `send` returns; through the
 * worker, it changes when the worker's report is drained, a turn or more later. The service is
 * written for the second (see `OpenTicket.ask`), and the first is its case of a report that comes
 * at once.
 *
 * Why a worker: the actors' allocation is three quarters of what a lookup allocates on the main
 * isolate, and its young-generation collections are what set the lookup p99 on the hosts measured
 * (spec/bench/results/runtime-lookup-ab-h100-host.txt, runtime-gc-dev-vm.txt).
 */
import { createActor, type ActorRefFrom } from 'xstate';
import { TICKET_EVENT_KIND as E, TICKET_REPORT_KIND as R, TICKET_STATE_CODES, TicketClock, TicketWorker, lookupTicketMachine, type TicketEffects, type TicketEvent, type TicketState } from '../lifecycles/index.js';
import type { Logger } from '../log/index.js';
import type { OpenTicket, TicketSlot } from './open-ticket.js';

export type TicketActors = 'main' | 'worker';
export const TICKET_ACTORS: readonly TicketActors[] = ['main', 'worker'];

export interface TicketRunner {
  readonly where: TicketActors;
  /** Whether an OPEN reaches the actor as it is sent (worker), rather than stepping it in this turn (main). */
  readonly queued: boolean;
  /** A slot for a new ticket: its actor idle, or in the state its last ticket ended in. */
  take(): TicketSlot;
  /** The ticket has ended: its slot serves the next one. */
  recycle(ticket: OpenTicket): void;
  /** Takes in what the actors did that has not reached their tickets yet (the worker's reports). */
  poll(): void;
  /** `poll()` once the current callback has returned (after the replies it writes). */
  pollSoon(): void;
  /** Actors alive. */
  readonly actors: number;
  /** Actors' timers waiting (the in-process clock's; the worker's are its own). */
  readonly timers: number;
  /** Resolves when the actors can be sent events at rate. */
  readonly ready: Promise<void>;
  /** Why tickets cannot be served (the worker kept failing), or null. */
  readonly failed: string | null;
  /** The ticket worker's thread id in the kernel (null in-process, before it runs, or where none can be read). */
  readonly workerThread: number | null;
  close(): Promise<void>;
}

/** Takes an ended ticket off its slot: the slot, free for the next ticket, or null if it serves none of this ticket's. */
function detach<S extends TicketSlot>(ticket: OpenTicket): S | null {
  const slot = ticket.slot as S | null;
  if (slot === null || slot.ticket !== ticket) return null;
  slot.ticket = null;
  ticket.slot = null;
  return slot;
}

/** Idle in-process ticket actors kept for reuse; beyond this many an ended ticket's actor is stopped. */
const TICKET_POOL = 1024;

/** A running in-process ticket actor; subscribed once, it hands its snapshots to whichever ticket it serves now. */
class ActorSlot implements TicketSlot {
  ticket: OpenTicket | null = null;
  readonly actor: ActorRefFrom<typeof lookupTicketMachine>;

  constructor(clock: TicketClock, leaseMs: number) {
    const effects: TicketEffects = {
      settle: (boundary) => this.ticket?.settle(boundary),
      releaseAll: () => this.ticket?.releaseAll(),
    };
    this.actor = createActor(lookupTicketMachine, { clock, input: { effects, leaseMs } });
    this.actor.subscribe({
      next: (snap) => this.ticket?.observe(snap.value as TicketState),
      // An effect that threw stops the actor: the ticket ends with its leases given back, and
      // the actor is not reused.
      error: () => this.ticket?.abandon(),
    });
    this.actor.start();
  }

  get state(): TicketState {
    return this.actor.getSnapshot().value as TicketState;
  }

  send(event: TicketEvent): void {
    this.actor.send(event);
  }
}

export class MainTickets implements TicketRunner {
  readonly where = 'main';
  readonly queued = false;
  readonly ready = Promise.resolve();
  readonly failed = null;
  readonly workerThread = null;
  /** Every ticket actor's deadlines and lease expiries: one heap behind one Node timer (bounded: one per actor). */
  readonly clock: TicketClock;
  private readonly idle: ActorSlot[] = [];
  actors = 0;

  constructor(maxTickets: number, private readonly leaseMs: number) {
    this.clock = new TicketClock({ capacity: Math.max(1, maxTickets) + TICKET_POOL });
  }

  get timers(): number {
    return this.clock.size;
  }

  poll(): void {}
  pollSoon(): void {}

  take(): TicketSlot {
    const slot = this.idle.pop();
    if (slot !== undefined) return slot;
    this.actors++;
    return new ActorSlot(this.clock, this.leaseMs);
  }

  recycle(ticket: OpenTicket): void {
    const slot = detach<ActorSlot>(ticket);
    if (slot === null) return;
    if (slot.actor.getSnapshot().status === 'active' && this.idle.length < TICKET_POOL) this.idle.push(slot);
    else {
      slot.actor.stop();
      this.actors--;
    }
  }

  close(): Promise<void> {
    for (const slot of this.idle.splice(0)) slot.actor.stop();
    return Promise.resolve();
  }
}

/** A slot of the worker's: its actor is the worker's, known here by the last state it reported. */
class WorkerSlot implements TicketSlot {
  ticket: OpenTicket | null = null;
  state: TicketState = 'idle';

  constructor(readonly index: number, private readonly runner: WorkerTickets) {}

  send(event: TicketEvent, quiet = false): void {
    this.runner.send(this.index, event, quiet);
  }
}

/** Worker exits within this window that make the runner give up (a worker that cannot run). */
const FAILURES = { count: 5, windowMs: 10_000 };

const int32 = (n: number, what: string): number => {
  if ((n | 0) !== n) throw new RangeError(`ticket worker: ${what} ${n} is not a 32-bit integer`);
  return n;
};

export class WorkerTickets implements TicketRunner {
  readonly where = 'worker';
  readonly queued = true;
  readonly timers = 0;
  private worker: TicketWorker;
  /** Every slot made so far (at most `maxTickets`): index i is the worker's actor i. */
  private readonly slots: WorkerSlot[] = [];
  /** Free slots whose actor lives on the worker, at rest (at most TICKET_POOL: the rest are retired). */
  private readonly idle: WorkerSlot[] = [];
  /** Free slots with no actor on the worker (retired, or never opened since the worker started): their next OPEN makes one. */
  private readonly retired: WorkerSlot[] = [];
  /** Actors alive on the worker, as this thread knows it: serving a ticket, or at rest in `idle`. */
  private alive = 0;
  private exits: number[] = [];
  failed: string | null = null;
  private closed = false;

  constructor(private readonly maxTickets: number, private readonly leaseMs: number, private readonly logger: Logger) {
    this.worker = this.start();
  }

  get ready(): Promise<void> {
    return this.worker.ready;
  }

  get workerThread(): number | null {
    return this.worker.kernelThreadId;
  }

  get actors(): number {
    return this.alive;
  }

  poll(): void {
    this.worker.poll();
  }

  pollSoon(): void {
    this.worker.pollSoon();
  }

  take(): TicketSlot {
    const slot = this.idle.pop();
    if (slot !== undefined) return slot;
    // Bounded: a slot is taken per open ticket and the service holds at most maxTickets open.
    const retired = this.retired.pop();
    if (retired === undefined && this.slots.length >= this.maxTickets) throw new RangeError(`ticket worker: all ${this.maxTickets} slots are serving tickets`);
    // Its OPEN makes the slot's actor on the worker.
    this.alive++;
    if (retired !== undefined) return retired;
    const made = new WorkerSlot(this.slots.length, this);
    this.slots.push(made);
    return made;
  }

  /**
   * The ticket has ended on the worker: its slot serves the next one. At most TICKET_POOL actors
   * wait at rest; past that the slot's actor is retired (stopped on the worker), so a burst that
   * filled the table leaves no actor per ticket it held (each is some 4.7 KB of the worker's heap).
   */
  recycle(ticket: OpenTicket): void {
    const slot = detach<WorkerSlot>(ticket);
    if (slot === null) return;
    if (this.idle.length < TICKET_POOL) return void this.idle.push(slot);
    this.worker.send(slot.index, E.retire, 0, 0, true);
    slot.state = 'idle';
    this.alive--;
    this.retired.push(slot);
  }

  send(index: number, event: TicketEvent, quiet: boolean): void {
    const w = this.worker;
    switch (event.type) {
      case 'OPEN': return w.send(index, E.open, int32(event.deadlineMs, 'deadlineMs'), event.agreed === undefined ? -1 : int32(event.agreed, 'agreed boundary'), quiet);
      case 'AGREED': return w.send(index, E.agreed, int32(event.boundary, 'boundary'), 0, quiet);
      case 'DEFER': return w.send(index, E.defer, 0, 0, quiet);
      case 'CANCEL': return w.send(index, E.cancel, 0, 0, quiet);
      case 'RELEASE': return w.send(index, E.release, 0, 0, quiet);
      case 'CONSUME': return w.send(index, E.consume, 0, 0, quiet);
      case 'CONSUMED': return w.send(index, E.consumed, 0, 0, quiet);
    }
  }

  close(): Promise<void> {
    this.closed = true;
    return this.worker.close();
  }

  private start(): TicketWorker {
    const worker = new TicketWorker({
      slots: Math.max(1, this.maxTickets),
      leaseMs: this.leaseMs,
      onReport: (index, kind, value) => this.report(index, kind, value),
      onExit: (error) => this.lost(worker, error),
    });
    return worker;
  }

  private report(index: number, kind: number, value: number): void {
    const slot = this.slots[index];
    if (slot === undefined) return;
    if (kind === R.state) {
      const state = TICKET_STATE_CODES[value]!;
      slot.state = state;
      // An actor reports idle only as it starts, before its first OPEN: no ticket's state.
      if (state !== 'idle') slot.ticket?.observe(state);
    } else if (kind === R.settle) slot.ticket?.settle(value);
    else if (kind === R.releaseAll) slot.ticket?.releaseAll();
    else if (kind === R.error) {
      // The worker dropped the actor; the slot's next event starts a new one.
      slot.state = 'idle';
      slot.ticket?.abandon();
    }
  }

  /**
   * The worker ended without being closed: its actors and their timers are gone. Every ticket
   * they served ends cancelled with its leases given back (a restore under way keeps its leases
   * until it has drained: see `OpenTicket.lost`), and a new worker takes the slots, all idle.
   */
  private lost(worker: TicketWorker, error: Error): void {
    if (this.closed || worker !== this.worker) return;
    const now = Date.now();
    this.exits = [...this.exits.filter((t) => now - t < FAILURES.windowMs), now];
    const tickets: OpenTicket[] = [];
    for (const slot of this.slots) {
      slot.state = 'idle';
      const t = slot.ticket;
      slot.ticket = null;
      if (t !== null) {
        t.slot = null;
        tickets.push(t);
      }
    }
    // The new worker has no actor: every slot makes its own at its next OPEN.
    this.idle.length = 0;
    this.retired.length = 0;
    this.alive = 0;
    for (let i = this.slots.length - 1; i >= 0; i--) this.retired.push(this.slots[i]!);
    const giveUp = this.exits.length >= FAILURES.count;
    this.logger.error('ticket-worker-exited', { detail: error.message, tickets: tickets.length, restarting: !giveUp, exitsInWindow: this.exits.length });
    if (giveUp) this.failed = `the ticket worker exited ${this.exits.length} times in ${FAILURES.windowMs / 1000} s (last: ${error.message})`;
    else this.worker = this.start();
    for (const t of tickets) t.lost();
  }
}
