/**
 * The lookup ticket lifecycle. A ticket is pending until its rank's match is known and every
 * rank of the request has reported (pending is never answered as a miss); the smallest
 * boundary of all ranks wins; a ticket left pending past its deadline times out, and so do
 * its sibling ranks (all defer). A ready ticket holds leases on its blocks until a restore
 * consumes it, the scheduler releases it (not selected), or its lease expires.
 */
import { assign, setup } from 'xstate';

export interface TicketContext {
  effects: TicketEffects;
  deadlineMs: number;
  leaseMs: number;
  boundary: number | null;
}

export type TicketEvent =
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

export const TICKET_FINAL = ['miss', 'timedOut', 'cancelled', 'released', 'expired', 'consumed'] as const;
export type TicketState = 'pending' | 'ready' | 'restoring' | (typeof TICKET_FINAL)[number];

/** The machine is built once; each ticket's effects travel in its input (per-request state with the request). */
export const lookupTicketMachine = setup({
    types: { context: {} as TicketContext, events: {} as TicketEvent, input: {} as { effects: TicketEffects; deadlineMs: number; leaseMs: number } },
    actions: {
      trim: ({ context }) => context.effects.trim(context.boundary ?? 0),
      releaseAll: ({ context }) => context.effects.releaseAll(),
    },
    delays: {
      deadline: ({ context }) => context.deadlineMs,
      lease: ({ context }) => context.leaseMs,
    },
  }).createMachine({
    id: 'lookupTicket',
    context: ({ input }) => ({ effects: input.effects, deadlineMs: input.deadlineMs, leaseMs: input.leaseMs, boundary: null }),
    initial: 'pending',
    states: {
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
      miss: { type: 'final', entry: 'releaseAll' },
      timedOut: { type: 'final', entry: 'releaseAll' },
      cancelled: { type: 'final', entry: 'releaseAll' },
      released: { type: 'final', entry: 'releaseAll' },
      expired: { type: 'final', entry: 'releaseAll' },
      consumed: { type: 'final', entry: 'releaseAll' },
    },
  });
