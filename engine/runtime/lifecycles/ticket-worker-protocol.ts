/**
 * What the main thread and the ticket worker (ticket-worker.ts, ticket-worker-thread.ts) say to
 * each other: events for a slot's actor, and reports of its states and effects, each one
 * EventRing record [kind, slot, a, b].
 */
import type { TicketState } from './lookup-ticket.js';

/** Main -> worker: an event for the actor in `slot`. */
export const TICKET_EVENT_KIND = {
  /** a = deadline ms, b = agreed boundary (-1: none yet). */
  open: 1,
  /** a = boundary. */
  agreed: 2,
  defer: 3,
  cancel: 4,
  release: 5,
  consume: 6,
  consumed: 7,
  /** The worker stops (slot ignored). */
  stop: 8,
  /** The slot's actor, at rest (its ticket ended), is stopped and dropped: its next OPEN makes a new one. */
  retire: 9,
} as const;

/**
 * Or'ed into an event's kind: nobody waits for what the event makes the actor do (a lookup answered
 * ahead, a release not answered). The worker takes it at the end of its nap (see NAP_MS), or,
 * asleep, is woken for it within a millisecond, rather than at once, and its reports do not wake
 * main, which drains them when it next serves a lookup; a worker that goes QUIET_REPORT_MS without
 * an event while such reports wait wakes main for them (at the end of the nap that passes it). So the
 * lookup path costs main no message and the worker no wake per event while lookups keep coming.
 */
export const TICKET_QUIET = 0x100;
export const QUIET_REPORT_MS = 5;
/**
 * How long the worker's nap lasts while events keep coming, the longest it grows to when they
 * stop (a nap that ends with nothing to take is followed by one twice as long), and how long it
 * naps after its last event before it sleeps until woken, in ms (the runtime bench keeps its echo
 * peer this far from its lookups, so the echo runs on a Manager whose worker sleeps). So a quiet
 * event waits at most NAP_MS while events come at least that often, and at most NAP_MAX_MS in a
 * lull: an engine asking 100 lookups/s no longer has the worker wake every millisecond between
 * them (on the dev VM its wakes per lookup went from 9.1 to 3.2).
 */
export const NAP_MS = 1;
export const NAP_MAX_MS = 8;
export const NAP_WHILE_MS = 50;

/** The nap after one of `nap` ms whose end found `took` events: NAP_MS if any, else twice `nap`, at most NAP_MAX_MS. */
export function nextNap(nap: number, took: number): number {
  return took > 0 ? NAP_MS : Math.min(2 * nap, NAP_MAX_MS);
}

/** Worker -> main: what the actor in `slot` did. */
export const TICKET_REPORT_KIND = {
  /** a = the state's code (TICKET_STATE_CODES). */
  state: 1,
  /** a = boundary: leases beyond it go. */
  settle: 2,
  /** Every lease of the slot's ticket goes. */
  releaseAll: 3,
  /** The actor failed and was dropped: the ticket ends with its leases given back. */
  error: 4,
} as const;

/** The lookup ticket's states, by code. */
export const TICKET_STATE_CODES: readonly TicketState[] = ['idle', 'pending', 'ready', 'restoring', 'miss', 'timedOut', 'cancelled', 'released', 'expired', 'consumed'];

export interface TicketWorkerData {
  events: SharedArrayBuffer;
  reports: SharedArrayBuffer;
  leaseMs: number;
  slots: number;
}
