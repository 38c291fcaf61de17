/**
 * The lookup-ticket actors on a worker thread: the main thread sends a slot's actor its events
 * and hears what the actor did (its states and its effects on leases), so the actors' allocation,
 * three quarters of what a lookup allocates in the Manager, is collected on the worker's heap and
 * its pauses hold up no reply (spec/bench/proto/actor-worker and spec/bench/results/
 * runtime-gc-dev-vm.txt measured the main isolate's scavenges fall to nothing but its own).
 *
 * What the Manager runs with `serve --ticket-actors worker` (service/ticket-runner.ts, WorkerTickets).
 * The actors run as they do in-process (the same machine, clock and pool per slot), and every
 * report reaches `onReport` in the order the actor made it (effects before the state they come
 * with, as in-process).
 *
 * Bounded: the event ring holds RING records; events pushed while it is full wait in an overflow
 * of at most `slots` x EVENTS_PER_SLOT (the service sends a slot's ticket a bounded number of events)
 * and are pushed as the worker takes the ring's (or by a timer). The report ring is as large; a
 * worker that finds it full wakes main and waits for it to drain. Main never blocks: it drains
 * reports when the worker says (a message, once per `listen`), and at `poll()`. Events sent quiet
 * (TICKET_QUIET) wake neither side at once: see the protocol.
 */
import { setFlagsFromString } from 'node:v8';
import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from '../../threads/module-worker.js';
import { EventRing } from './event-ring.js';
import { TICKET_EVENT_KIND, TICKET_QUIET, type TicketWorkerData } from './ticket-worker-protocol.js';

/** The worker isolate's semi-spaces, in MiB. */
const WORKER_SEMI_SPACE_MIB = 1;
/**
 * The worker isolate's first old-generation limit, in MiB (V8 otherwise lets a new isolate's
 * old generation fill far past what it keeps before its first full collection): under the soak
 * of 64 clients on the dev VM its heap then peaked at 13.7 MiB instead of 15.9.
 */
const WORKER_INITIAL_OLD_MIB = 4;

/** Records in each ring. */
const RING = 4096;
/** How long close() lets the worker read its way to the stop before it terminates it. */
const CLOSE_MS = 2000;
const DISCARD = (): void => undefined;
/** How soon a sleeping worker is woken for quiet events (TICKET_QUIET), in ms. */
const QUIET_WAKE_MS = 1;

/** Most events a slot is sent before its ticket's end is reported (a RETIRE of its last actor, OPEN, AGREED or DEFER, CANCEL or RELEASE or CONSUME, CONSUMED, and one spare). */
export const EVENTS_PER_SLOT = 6;

export interface TicketWorkerOptions {
  /** Slots (actors) the worker may hold: the service's most open tickets. */
  slots: number;
  /** How long a ready ticket holds its leases before it expires. */
  leaseMs: number;
  /** What a slot's actor did (TICKET_REPORT_KIND), in order. */
  onReport(slot: number, kind: number, value: number): void;
  /** The worker ended without being closed (crashed, or a defect stopped it). */
  onExit(error: Error): void;
}

export class TicketWorker {
  private readonly events: EventRing;
  private readonly reports: EventRing;
  private readonly worker: Worker;
  /** Events the full ring could not take yet, oldest first (flat: kind, slot, a, b). */
  /** Events waiting for room in the ring, four numbers each, from `overflowHead` on (see `flush`). */
  private overflow: number[] = [];
  private overflowHead = 0;
  private readonly overflowMax: number;
  private closing: Promise<void> | null = null;
  private flushTimer: NodeJS.Timeout | null = null;
  private wakeTimer: NodeJS.Timeout | null = null;
  /** Messages the worker sent to have its reports drained (what quiet events save main: one each otherwise). */
  wakes = 0;
  /** The worker thread's id in the kernel once it runs (null before, or where it has none to read). */
  kernelThreadId: number | null = null;
  /**
   * Resolves once the worker runs its loop; rejects if it ends first. Until then events wait in the
   * ring and the overflow, which are sized for a worker that keeps up: a caller awaits this before it
   * sends at any rate (the Manager, before it serves).
   */
  readonly ready: Promise<void>;

  private readonly eachReport: (kind: number, slot: number, value: number) => void;

  constructor(private readonly options: TicketWorkerOptions) {
    const onReport = options.onReport;
    this.eachReport = (kind, slot, value) => onReport(slot, kind, value);
    if (!Number.isSafeInteger(options.slots) || options.slots < 1) throw new RangeError(`slots must be a positive integer, got ${options.slots}`);
    const events = EventRing.memory(RING);
    const reports = EventRing.memory(RING);
    this.events = new EventRing(events);
    this.reports = new EventRing(reports);
    this.overflowMax = options.slots * EVENTS_PER_SLOT;
    const data: TicketWorkerData = { events, reports, leaseMs: options.leaseMs, slots: options.slots };
    // A small young generation and first old-generation limit: the Manager's node flags give
    // every isolate the main thread's (sized for the reply path's pauses), which would cost this
    // one tens of MiB for nothing: its scavenges pause no reply. Those flags outrank a worker's
    // resourceLimits, so they are set for the isolates made from now on (an isolate reads them as
    // it is made; the main thread's young generation, made at start, keeps its size).
    setFlagsFromString(`--min-semi-space-size=${WORKER_SEMI_SPACE_MIB}`);
    setFlagsFromString(`--max-semi-space-size=${WORKER_SEMI_SPACE_MIB}`);
    setFlagsFromString(`--initial-old-space-size=${WORKER_INITIAL_OLD_MIB}`);
    this.worker = startModuleWorker(import.meta.url, 'ticket-worker-thread', data);
    let started!: () => void;
    let failed!: (error: Error) => void;
    this.ready = new Promise<void>((resolve, reject) => {
      started = resolve;
      failed = reject;
    });
    // Handled here so that a worker that ends before it is awaited is no unhandled rejection.
    this.ready.catch(() => undefined);
    this.worker.on('message', (m: unknown) => {
      if (typeof m === 'object' && m !== null && 'ready' in m) {
        const tid = (m as { ready: unknown }).ready;
        this.kernelThreadId = typeof tid === 'number' ? tid : null;
        return started();
      }
      this.wakes++;
      this.drainReports();
    });
    this.worker.once('error', (error) => {
      failed(error);
      this.ended(error);
    });
    this.worker.once('exit', (code) => {
      const error = new Error(`the ticket worker exited with code ${code}`);
      failed(error);
      this.ended(error);
    });
    this.reports.listen();
  }

  /**
   * Sends the actor in `slot` an event (TICKET_EVENT_KIND; `a`, `b` as the kind says). A slot
   * outside 0..slots-1 is refused here; an unknown kind is the worker's to refuse (it stops, and
   * `onExit` says why).
   */
  send(slot: number, kind: number, a = 0, b = 0, quiet = false): void {
    if (this.closing) throw new Error('the ticket worker is closed');
    if (!Number.isInteger(slot) || slot < 0 || slot >= this.options.slots) throw new RangeError(`ticket worker: slot ${slot} is outside 0..${this.options.slots - 1}`);
    if (this.overflow.length > 0) this.flush();
    if (quiet) kind |= TICKET_QUIET;
    if (this.overflow.length === 0 && this.events.push(kind, slot, a, b)) {
      if (!quiet) this.events.wake();
      else {
        // A worker that is not asleep sees the event before it sleeps (it reads the head after it
        // raises its flag); one that is is woken by the next event that is not quiet, or soon.
        if (this.events.sleeping && this.wakeTimer === null) this.wakeTimer = setTimeout(this.wakeWorker, QUIET_WAKE_MS);
      }
      return;
    }
    if (this.waiting >= this.overflowMax) throw new RangeError(`ticket worker: ${this.overflowMax} events waiting for the worker (${this.options.slots} slots x ${EVENTS_PER_SLOT}); more is a defect of the sender`);
    this.overflow.push(kind, slot, a, b);
    this.events.wake();
    this.flushSoon();
  }

  /**
   * Hands what the worker reported to `onReport` now (a caller about to look at tickets: the
   * service, as it serves a lookup), without waiting for the worker's message.
   */
  poll(): void {
    if (this.reports.waiting > 0) this.drainReports(false);
  }

  /**
   * `poll()` once the current callback has returned (a microtask): for a caller on the reply path
   * (the service, as it answers a lookup), so that what the worker reported since the last drain,
   * tens of reports at a time, is taken in after the reply is written, not before it.
   */
  pollSoon(): void {
    if (this.pollQueued || this.reports.waiting === 0) return;
    this.pollQueued = true;
    queueMicrotask(this.pollQueuedNow);
  }

  private pollQueued = false;
  private readonly pollQueuedNow = (): void => {
    this.pollQueued = false;
    this.poll();
  };

  private readonly wakeWorker = (): void => {
    this.wakeTimer = null;
    this.events.wake();
  };

  /** Events waiting in the overflow for room in the ring. */
  get waiting(): number {
    return (this.overflow.length - this.overflowHead) / 4;
  }

  /**
   * Stops the worker (its actors and their timers go with it): it reads the stop after the events
   * before it, its reports drained and thrown away meanwhile; one that has not exited within
   * CLOSE_MS (a defect, or a backlog that long) is terminated.
   */
  close(): Promise<void> {
    if (this.closing) return this.closing;
    this.closing = new Promise<void>((resolve) => {
      const deadline = setTimeout(() => void this.worker.terminate(), CLOSE_MS);
      deadline.unref();
      this.worker.once('exit', () => {
        clearTimeout(deadline);
        resolve();
      });
      this.overflow = [];
      this.overflowHead = 0;
      this.clearTimers();
      if (!this.events.push(TICKET_EVENT_KIND.stop, 0, 0, 0)) void this.worker.terminate();
      this.events.wake();
    });
    // Closing now: the reports already waiting are thrown away, making room for any the worker is blocked on.
    this.drainReports();
    return this.closing;
  }

  /**
   * Pushes what waits in the overflow into the ring, as far as it has room. The overflow is read
   * from a head index and compacted only once the head has passed half of it: a backlog of N events
   * costs O(N) to move in all, not a copy of what is left at every send (as slicing it did, which
   * under a backlog of hundreds of thousands of events was quadratic).
   */
  private flush(): void {
    const o = this.overflow;
    const start = this.overflowHead;
    let i = start;
    while (i < o.length && this.events.push(o[i]!, o[i + 1]!, o[i + 2]!, o[i + 3]!)) i += 4;
    if (i > start) {
      if (i === o.length) {
        this.overflow = [];
        this.overflowHead = 0;
      } else if (i * 2 >= o.length) {
        o.copyWithin(0, i);
        o.length -= i;
        this.overflowHead = 0;
      } else this.overflowHead = i;
      this.events.wake();
    }
    if (this.overflow.length > 0) this.flushSoon();
  }

  /**
   * Pushes what waits in the overflow a millisecond from now, and again until none waits: the
   * worker reports most events it takes (and main flushes then), but not one it drops (see the
   * thread), so reports alone might never come.
   */
  private flushSoon(): void {
    if (this.flushTimer !== null || this.closing) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = null;
      if (!this.closing) this.flush();
    }, 1);
  }

  private clearTimers(): void {
    for (const t of [this.flushTimer, this.wakeTimer]) if (t !== null) clearTimeout(t);
    this.flushTimer = this.wakeTimer = null;
  }

  /** Hands every waiting report to `onReport`; `listen`: then raises the flag the worker's next wake takes down (after its message). */
  private drainReports(listen = true): void {
    // A worker that has ended (or is being closed) reports nothing more: what its ring still
    // holds is about actors that are gone, and a replacement's slots must not hear it. It is
    // drained all the same, and thrown away: a worker closed with its report ring full waits for
    // room before it reads its next event, and the stop is one of them.
    const each = this.closing ? DISCARD : this.eachReport;
    if (listen) {
      do this.reports.drain(each);
      while (!this.reports.listen());
    } else this.reports.drain(each);
    // The worker took events: room for those that waited (and a timer pushes them if no report comes).
    if (this.overflow.length > 0 && !this.closing) this.flush();
  }

  private ended(error: Error): void {
    if (this.closing) return;
    this.closing = Promise.resolve();
    this.clearTimers();
    this.options.onExit(error);
  }
}
