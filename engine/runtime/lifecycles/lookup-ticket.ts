/**
 * The lookup ticket lifecycle. A ticket is pending until its rank's match is known and every
 * rank of the request has reported (pending is never answered as a miss); the smallest
 * boundary of all ranks wins; a ticket left pending past its deadline times out, and so do
 * its sibling ranks (all defer). A ready ticket holds leases on its blocks until a restore
 * consumes it, the scheduler releases it (not selected), or its lease expires.
 *
 * One actor serves many tickets in turn: it waits `idle`, an OPEN starts a ticket (its effects
 * and deadlines in the event, and its boundary when that is already agreed), and a ticket that has ended (miss, timed out, cancelled,
 * released, expired, consumed) leaves the actor ready for the next OPEN. So a lookup costs a
 * few transitions of a running actor, not an actor's creation (see the service's pool).
 */
import { assign, setup } from 'xstate';

export interface TicketContext {
  effects: TicketEffects | null;
  deadlineMs: number;
  leaseMs: number;
  boundary: number | null;
}

export type TicketEvent =
  /** `agreed`: the boundary when it is known at once (a single rank whose match is settled). */
  | { type: 'OPEN'; effects: TicketEffects; deadlineMs: number; leaseMs: number; agreed?: number }
  | { type: 'AGREED'; boundary: number }
  | { type: 'DEFER' }
  | { type: 'CANCEL' }
  | { type: 'RELEASE' }
  | { type: 'CONSUME' }
  | { type: 'CONSUMED' };

export interface TicketEffects {
  /** Leases beyond the agreed boundary are given back. */
  trim(boundary: number): void;
  /** Every lease the ticket still holds is given back. */
  releaseAll(): void;
}

/** The states in which a ticket has ended: its leases are gone and the actor may take the next OPEN. */
export const TICKET_FINAL = ['miss', 'timedOut', 'cancelled', 'released', 'expired', 'consumed'] as const;
export type TicketState = 'idle' | 'pending' | 'ready' | 'restoring' | (typeof TICKET_FINAL)[number];

/** An OPEN whose boundary is already agreed goes straight to ready (or miss); else it waits in pending. */
const opening = [
  { guard: 'agreedAhead', target: 'ready', actions: 'open' },
  { guard: 'missAhead', target: 'miss', actions: 'open' },
  { target: 'pending', actions: 'open' },
] as const;
const ended = { entry: 'releaseAll', on: { OPEN: opening } } as const;

/** The machine is built once; each ticket's effects travel in its OPEN event (per-request state with the request). */
export const lookupTicketMachine = setup({
    types: { context: {} as TicketContext, events: {} as TicketEvent },
    actions: {
      open: assign(({ event }) => {
        const e = event as Extract<TicketEvent, { type: 'OPEN' }>;
        return { effects: e.effects, deadlineMs: e.deadlineMs, leaseMs: e.leaseMs, boundary: e.agreed ?? null };
      }),
      trim: ({ context }) => context.effects!.trim(context.boundary ?? 0),
      releaseAll: ({ context }) => context.effects!.releaseAll(),
    },
    guards: {
      agreedAhead: ({ event }) => event.type === 'OPEN' && event.agreed !== undefined && event.agreed > 0,
      missAhead: ({ event }) => event.type === 'OPEN' && event.agreed === 0,
    },
    delays: {
      deadline: ({ context }) => context.deadlineMs,
      lease: ({ context }) => context.leaseMs,
    },
  }).createMachine({
    id: 'lookupTicket',
    context: { effects: null, deadlineMs: 0, leaseMs: 0, boundary: null },
    initial: 'idle',
    states: {
      idle: { on: { OPEN: opening } },
      pending: {
        after: { deadline: 'timedOut' },
        on: {
          AGREED: [
            { guard: ({ event }) => event.boundary > 0, target: 'ready', actions: assign({ boundary: ({ event }) => event.boundary }) },
            { target: 'miss', actions: assign({ boundary: () => 0 }) },
          ],
          DEFER: 'timedOut',
          CANCEL: 'cancelled',
        },
      },
      ready: {
        entry: 'trim',
        after: { lease: 'expired' },
        on: { CONSUME: 'restoring', RELEASE: 'released', CANCEL: 'released' },
      },
      // The restore owns the leases now; they go when it has drained.
      restoring: { on: { CONSUMED: 'consumed' } },
      miss: ended,
      timedOut: ended,
      cancelled: ended,
      released: ended,
      expired: ended,
      consumed: ended,
    },
  });
