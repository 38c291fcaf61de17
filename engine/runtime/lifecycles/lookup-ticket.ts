/**
 * The lookup ticket lifecycle. A ticket is pending until its rank's match is known and every
 * rank of the request has reported (pending is never answered as a miss); the smallest
 * boundary of all ranks wins; a ticket left pending past its deadline times out, and so do
 * its sibling ranks (all defer). A ready ticket holds leases on its blocks until a restore
 * consumes it, the scheduler releases it (not selected), or its lease expires.
 *
 * One actor serves many tickets in turn: it waits `idle`, an OPEN starts a ticket (its deadline
 * in the event, and its boundary when that is already agreed), and a ticket that has ended
 * (miss, timed out, cancelled, released, expired, consumed) leaves the actor ready for the next
 * OPEN. So a lookup costs a few transitions of a running actor, not an actor's creation (see
 * the service's pool).
 *
 * The context is the actor's own and never changes: its effects (which act on the ticket the
 * actor serves now) and the lease. The agreed boundary is not kept in the context: it reaches
 * `settle` from the event that makes the ticket ready (an OPEN already agreed or an AGREED), and
 * the ticket keeps it. An `assign` would rebuild the actor's snapshot once more per ticket,
 * which on the lookup path is a quarter of what xstate costs a ticket (see
 * spec/bench/results/runtime-lookup-dev-vm.txt).
 */
import { setup, transition, type SnapshotFrom } from 'xstate';

export interface TicketInput {
  effects: TicketEffects;
  /** How long a ready ticket holds its leases before it expires. */
  leaseMs: number;
}

export type TicketContext = TicketInput;

export type TicketEvent =
  /** `agreed`: the boundary when it is known at once (a single rank whose match is settled). */
  | { type: 'OPEN'; deadlineMs: number; agreed?: number }
  | { type: 'AGREED'; boundary: number }
  | { type: 'DEFER' }
  | { type: 'CANCEL' }
  | { type: 'RELEASE' }
  | { type: 'CONSUME' }
  | { type: 'CONSUMED' };

/** What the actor does to the ticket it serves now. */
export interface TicketEffects {
  /** The ticket is ready with this boundary (> 0): leases beyond it are given back. */
  settle(boundary: number): void;
  /** Every lease the ticket still holds is given back. */
  releaseAll(): void;
}

/** The states in which a ticket has ended: its leases are gone and the actor may take the next OPEN. */
export const TICKET_FINAL = ['miss', 'timedOut', 'cancelled', 'released', 'expired', 'consumed'] as const;
export type TicketState = 'idle' | 'pending' | 'ready' | 'restoring' | (typeof TICKET_FINAL)[number];

/** The boundary an event brings a ticket: an OPEN's agreed one, or an AGREED's (undefined: none). */
const boundaryOf = (event: TicketEvent): number | undefined => (event.type === 'OPEN' ? event.agreed : event.type === 'AGREED' ? event.boundary : undefined);

/** An OPEN whose boundary is already agreed goes straight to ready (or miss); else it waits in pending. */
const opening = [
  { guard: 'agreedAhead', target: 'ready' },
  { guard: 'missAhead', target: 'miss' },
  { target: 'pending' },
] as const;
const ended = { entry: 'releaseAll', on: { OPEN: opening } } as const;

/** The machine is built once; each actor's effects and lease come in its input. */
export const lookupTicketMachine = setup({
    types: { context: {} as TicketContext, events: {} as TicketEvent, input: {} as TicketInput },
    actions: {
      // Entered only by an OPEN already agreed or an AGREED, both with a boundary > 0 (the guards).
      settle: ({ context, event }) => context.effects.settle(boundaryOf(event)!),
      releaseAll: ({ context }) => context.effects.releaseAll(),
    },
    guards: {
      agreedAhead: ({ event }) => event.type === 'OPEN' && event.agreed !== undefined && event.agreed > 0,
      missAhead: ({ event }) => event.type === 'OPEN' && event.agreed === 0,
      agreedSome: ({ event }) => event.type === 'AGREED' && event.boundary > 0,
    },
    delays: {
      // Pending is entered by an OPEN only.
      deadline: ({ event }) => (event.type === 'OPEN' ? event.deadlineMs : 0),
      lease: ({ context }) => context.leaseMs,
    },
  }).createMachine({
    id: 'lookupTicket',
    context: ({ input }) => ({ effects: input.effects, leaseMs: input.leaseMs }),
    initial: 'idle',
    states: {
      idle: { on: { OPEN: opening } },
      pending: {
        after: { deadline: 'timedOut' },
        on: {
          AGREED: [{ guard: 'agreedSome', target: 'ready' }, { target: 'miss' }],
          DEFER: 'timedOut',
          CANCEL: 'cancelled',
        },
      },
      ready: {
        entry: 'settle',
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

/** A context for snapshots resolved only to ask where an event takes them (no action of theirs runs). */
const PLACEHOLDER_CONTEXT: TicketContext = { effects: { settle: () => undefined, releaseAll: () => undefined }, leaseMs: 0 };

/**
 * Where an OPEN takes a ticket actor, as the machine's own pure `transition` computes it (guards
 * evaluated, no action run), remembered per (state the actor is in, agreed boundary). It lets
 * the service answer a settled lookup before the actor takes the OPEN: the reply is written
 * first and the actor's step, which costs more than the rest of the lookup, runs right after
 * in the same turn. The actor's own step stays the authority: the ticket follows it, and a
 * state other than the one answered is logged as a defect (spec/runtime/lookup-opening.spec.ts
 * holds the table to the actor for every state and boundary class).
 *
 * The OPEN's guards read only its `agreed` (not its deadline, and not the context, which is the
 * same for every actor of a service): that is what makes the remembered answer exact. Bounded:
 * past `capacity` entries a new pair is computed each time, never stored.
 */
export class OpeningTable {
  private readonly rows = new Map<string, Map<number, TicketState>>();
  /** One resolved snapshot per state, for `targetOf` (at most one per state of the machine). */
  private readonly snapshots = new Map<TicketState, SnapshotFrom<typeof lookupTicketMachine>>();
  private size = 0;

  constructor(readonly capacity = 4096) {
    if (!Number.isSafeInteger(capacity) || capacity < 0) throw new RangeError(`capacity must be a non-negative integer, got ${capacity}`);
  }

  /**
   * The state an OPEN with this agreed boundary takes an actor in `state` to, for an actor the
   * caller knows only by its state (one on the ticket worker's thread): the snapshot is the
   * machine's own, resolved once per state. The context it carries is a placeholder, which is
   * exact because the OPEN's guards read only the event (see above).
   */
  targetOf(state: TicketState, agreed: number): TicketState {
    return this.target(this.snapshotOf(state), agreed);
  }

  /** The machine's snapshot of `state` with the placeholder context, resolved once per state. */
  private snapshotOf(state: TicketState): SnapshotFrom<typeof lookupTicketMachine> {
    let snapshot = this.snapshots.get(state);
    if (snapshot === undefined) this.snapshots.set(state, (snapshot = lookupTicketMachine.resolveState({ value: state, context: PLACEHOLDER_CONTEXT })));
    return snapshot;
  }

  /**
   * The state an event without fields (RELEASE, CANCEL) takes an actor in `state` to, as the
   * machine's pure `transition` computes it (its guards read no context): the state stays where
   * the machine has no such transition. Remembered per (state, event): a dozen pairs at most.
   */
  after(state: TicketState, type: 'RELEASE' | 'CANCEL'): TicketState {
    // One map per event, keyed by the state's own string: no key is built per call (a RELEASE
    // is sent for nearly every lookup).
    const fixed = type === 'RELEASE' ? this.afterRelease : this.afterCancel;
    let to = fixed.get(state);
    if (to === undefined) {
      const [next] = transition(lookupTicketMachine, this.snapshotOf(state), { type });
      fixed.set(state, (to = next.value as TicketState));
    }
    return to;
  }

  /** Where RELEASE and CANCEL take each state (at most one entry per state of the machine). */
  private readonly afterRelease = new Map<TicketState, TicketState>();
  private readonly afterCancel = new Map<TicketState, TicketState>();

  /** The state an OPEN with this agreed boundary takes an actor in `snapshot` to. */
  target(snapshot: SnapshotFrom<typeof lookupTicketMachine>, agreed: number): TicketState {
    const from = snapshot.value as string;
    let row = this.rows.get(from);
    if (row === undefined) this.rows.set(from, (row = new Map()));
    let to = row.get(agreed);
    if (to === undefined) {
      const [next] = transition(lookupTicketMachine, snapshot, { type: 'OPEN', deadlineMs: 0, agreed });
      to = next.value as TicketState;
      if (this.size < this.capacity) {
        row.set(agreed, to);
        this.size++;
      }
    }
    return to;
  }
}
