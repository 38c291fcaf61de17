/**
 * One lookup ticket while it is open: its keys and leases, its record in the history, and the
 * pooled ticket actor that serves it. The actor decides (its states and `after` deadlines); this
 * object carries what the actor's effects act on and turns its snapshots into the reply.
 *
 * A class rather than closures per ticket: a lookup allocates this object and its record, and
 * the session's cancel, the rank agreement's callbacks and the actor's effects are its methods.
 */
import type { Block, BlockCache } from '../catalog/index.js';
import { TICKET_FINAL, type RankMember, type TicketEvent, type TicketState } from '../lifecycles/index.js';
import type { FirstMiss, RequestRing } from '../records/index.js';
import type { Session, SessionTicket } from '../session/index.js';

export interface LookupReply {
  ticket: number;
  state: TicketState;
  boundary: number | null;
  matched: number;
  tiers: { dram: number; ssd: number };
}

/** A ticket actor of the service's (in-process or on the ticket worker) and the ticket it serves now (null while idle). */
export interface TicketSlot {
  ticket: OpenTicket | null;
  /** The state the actor is in, as this thread knows it: the actor's own, or the last its worker reported. */
  readonly state: TicketState;
  /**
   * Steps the actor (in-process) or queues the event for it (worker): in both, in the order sent.
   * `quiet`: nobody waits for what the event makes the actor do (the worker then takes it, and main
   * hears of it, a little later; see TICKET_QUIET).
   */
  send(event: TicketEvent, quiet?: boolean): void;
}

/** What a ticket tells the service: when it is answered (leaves pending) and when it has ended. */
export interface TicketHost {
  readonly cache: BlockCache;
  /** The history the ticket's record is in (written through the ticket's handle). */
  readonly records: RequestRing;
  answered(ticket: OpenTicket, latencyUs: number): void;
  /** The ticket became `ending` (+1), or its actor took it elsewhere after all (-1); `ended` then counts it out. */
  endingChanged(delta: 1 | -1): void;
  ended(ticket: OpenTicket): void;
  /** The actor took the ticket to `actual` after the reply said `answered` (a defect: logged). */
  mismatched(ticket: OpenTicket, answered: TicketState, actual: TicketState): void;
  /** Where the machine takes an actor in `state` on `type` (see OpeningTable.after). */
  after(state: TicketState, type: 'RELEASE' | 'CANCEL'): TicketState;
}

const ENDED: ReadonlySet<string> = new Set(TICKET_FINAL);
const hasEnded = (state: TicketState) => ENDED.has(state);
const restoringOrEnded = (state: TicketState) => state === 'restoring' || ENDED.has(state);
/** The events without fields, one object each for every ticket. */
export const TICKET_EVENT = {
  defer: { type: 'DEFER' },
  cancel: { type: 'CANCEL' },
  release: { type: 'RELEASE' },
  consume: { type: 'CONSUME' },
  consumed: { type: 'CONSUMED' },
} as const satisfies Record<string, TicketEvent>;

export class OpenTicket implements SessionTicket, RankMember {
  /** The blocks this ticket leases (see BlockCache.pin). */
  leased: Block[] = [];
  state: TicketState = 'pending';
  /** The agreed boundary once ready (0 for a miss; null while pending, or if it never agreed). */
  boundary: number | null = null;
  matched = 0;
  tiers = { dram: 0, ssd: 0 };
  /** The first block the ticket does not cover and why (as its record says; the metrics count it). */
  firstMiss: FirstMiss | null = null;
  /** The actor serving this ticket while it is open (null once it has ended). */
  slot: TicketSlot | null = null;
  /** Set once the ticket leaves pending (or is answered ahead of its actor). */
  answer: LookupReply | null = null;
  /** The OPEN the actor has not taken yet, for a ticket answered ahead (see `answerAhead`). */
  private opening: TicketEvent | null = null;
  /** Whether the actor has taken the ticket out of pending (its answer is then final). */
  private left = false;
  private latencyUs = 0;
  /** Made only for a ticket that did not settle while it opened (the common solo ticket has no promise). */
  private resolveReply: ((reply: LookupReply) => void) | null = null;
  /** Stops waiting for the block a pending ticket waits on (a ranked or unsettled lookup). */
  stopListening: (() => void) | null = null;
  /** See `ending`. */
  private endingNow = false;
  /** CONSUME was sent: a restore owns the ticket and its leases until CONSUMED. */
  consuming = false;
  /** Its actor was lost (the ticket worker died) while a restore owned it: the restore's end gives its leases back. */
  private orphaned = false;
  /** Resolves the one ask in flight (see `ask`) once the ticket's state satisfies it. */
  private waiter: { until: (state: TicketState) => boolean; resolve: (state: TicketState) => void } | null = null;

  constructor(
    readonly id: number,
    readonly session: Session,
    readonly keys: readonly string[],
    readonly rank: number,
    readonly request: string,
    /** The ticket's record's handle in the history. */
    readonly record: number,
    private readonly started: number,
    private readonly host: TicketHost,
  ) {}

  /** Sends to the ticket's actor while it still serves this ticket (a late event is dropped). */
  send(event: TicketEvent, quiet = false): void {
    this.open();
    const slot = this.slot;
    if (slot !== null && slot.ticket === this) slot.send(event, quiet);
  }

  /**
   * Sends `event` and answers the ticket's state once `until` holds: at once when the actor is
   * in-process (its step has run when `send` returns), else when the worker's report of that step
   * (or of one that came first, such as a lease expiring) has been drained.
   */
  private ask(event: TicketEvent, until: (state: TicketState) => boolean): TicketState | Promise<TicketState> {
    this.send(event);
    if (until(this.state)) return this.state;
    return new Promise<TicketState>((resolve) => {
      const before = this.waiter;
      this.waiter = {
        until,
        resolve: (state) => {
          if (before !== null && before.until(state)) before.resolve(state);
          resolve(state);
        },
      };
    });
  }

  /**
   * The client releases the ticket (its scheduler did not select the request). A pending ticket
   * takes no RELEASE, nor one a restore consumes: their state is answered and nothing is sent.
   * `answered`: false for a release nobody is answered (the binary RELEASE): its state is not
   * waited for.
   */
  askRelease(answered = true): TicketState | Promise<TicketState> {
    if (this.consuming) return 'restoring';
    if (this.answer === null) return 'pending';
    this.markEnding(true);
    this.recordAhead('RELEASE');
    if (answered) return this.ask(TICKET_EVENT.release, hasEnded);
    this.send(TICKET_EVENT.release, true);
    return this.state;
  }

  /** The client cancels the ticket: a pending one ends cancelled, a ready one released (a consumed one is its restore's to cancel). */
  askCancel(): TicketState | Promise<TicketState> {
    if (this.consuming) return 'restoring';
    this.markEnding(true);
    this.recordAhead('CANCEL');
    return this.ask(TICKET_EVENT.cancel, hasEnded);
  }

  /** A restore takes the ticket: answers `restoring` once the actor has, or the state it ended in first (its lease expired). */
  askConsume(): TicketState | Promise<TicketState> {
    this.consuming = true;
    return this.ask(TICKET_EVENT.consume, restoringOrEnded);
  }

  /**
   * The restore has drained: the ticket ends consumed and its leases go. They go as CONSUMED is
   * sent, as for a RELEASE (every path of the actor from `restoring` on CONSUMED gives them all
   * back), so a STATUS after the restore's answer, or after its session has closed, sees them gone
   * though the ticket worker has not reported yet; and the ticket can no longer be named.
   */
  consumed(): void {
    this.markEnding(true);
    if (!this.orphaned) return this.send(TICKET_EVENT.consumed);
    this.orphaned = false;
    this.observe('consumed');
  }

  /**
   * The ticket's actor is gone (the ticket worker died) and its slot serves others now: it ends
   * cancelled with its leases given back, unless a restore owns it, which gives them back when it
   * has drained (a page is never reported free while a read into it can still land, and a block is
   * not evicted under a read).
   */
  lost(): void {
    if (this.state === 'restoring') this.orphaned = true;
    else this.abandon();
  }

  /**
   * Answers the ticket as `reply` says (ready with its boundary, or miss) before its actor takes
   * `opening`, the OPEN the table says takes it there: the reply goes out first, and `open()`
   * (the service calls it right after, in the same turn, and any event sent to the ticket
   * first) hands the actor the OPEN. The history and the metrics are filled from the actor's
   * step, as for every ticket.
   */
  answerAhead(reply: LookupReply & { state: 'ready' | 'miss' }, opening: TicketEvent): LookupReply {
    this.opening = opening;
    const state = reply.state;
    const boundary = reply.boundary ?? 0;
    this.boundary = boundary;
    this.answerAs(state, reply);
    // The history says what the client was told (the actor's step writes the same, or corrects it).
    const records = this.host.records;
    records.setState(this.record, state);
    records.setAnswer(this.record, boundary, Math.round(this.latencyUs));
    return reply;
  }

  /**
   * Writes in the history the state `type`, sent now, takes the ticket to, as the machine says,
   * before the actor's report comes (a worker's comes a turn or more later): `orbitkv requests`
   * then agrees with the leases, which went as the event was sent. The actor's report writes its
   * own state after, the same one unless something came first (a lease that expired).
   */
  private recordAhead(type: 'RELEASE' | 'CANCEL'): void {
    const known = this.left ? this.state : (this.answer?.state ?? this.state);
    this.host.records.setState(this.record, this.host.after(known, type));
  }

  /** Hands the actor the OPEN of a ticket answered ahead (nothing if it has it already). */
  open(): void {
    const e = this.opening;
    if (e === null) return;
    this.opening = null;
    const slot = this.slot;
    // Answered already: nobody waits for the actor's step.
    if (slot !== null && slot.ticket === this) slot.send(e, true);
  }

  /**
   * An event that ends the ticket was sent (RELEASE of a ready one, CANCEL), or it was answered as
   * ended: the client can no longer name it, and nothing more is sent to it but what is in flight.
   * Its leases went when it became so (every path of the actor from there gives them all back), so
   * a STATUS or a restore after a release sees them gone though the worker has not reported yet.
   */
  get ending(): boolean {
    return this.endingNow;
  }

  private markEnding(releaseLeases: boolean): void {
    if (!this.endingNow) {
      this.endingNow = true;
      this.host.endingChanged(1);
    }
    if (releaseLeases) this.releaseAll();
  }

  /** The reply now if the ticket has left pending, else a promise of it. */
  reply(): LookupReply | Promise<LookupReply> {
    return this.answer ?? new Promise<LookupReply>((resolve) => (this.resolveReply = resolve));
  }

  // The session closing (a ticket a restore consumes is that restore's to cancel), and the rank
  // agreement (which tells each member once).
  cancel(): void {
    if (this.ending || this.consuming) return;
    this.markEnding(true);
    this.recordAhead('CANCEL');
    this.send(TICKET_EVENT.cancel, true);
  }
  agreed(boundary: number): void {
    if (!this.ending) this.send({ type: 'AGREED', boundary });
  }
  defer(): void {
    if (!this.ending) this.send(TICKET_EVENT.defer);
  }

  // The actor's effects.
  settle(boundary: number): void {
    this.boundary = boundary;
    // A single rank's boundary is its own match: nothing beyond it is leased, nothing to give back.
    if (boundary >= this.leased.length) return;
    this.host.cache.unpin(this.leased.slice(boundary));
    this.leased = this.leased.slice(0, boundary);
  }
  releaseAll(): void {
    this.host.cache.unpin(this.leased);
    this.leased = [];
  }

  /** Ends the ticket cancelled with its leases given back, when its actor cannot (it failed, or never got its OPEN). */
  abandon(): void {
    this.releaseAll();
    this.observe('cancelled');
  }

  /** The reply for a ticket that has left pending as `state` (its latency taken now); `given`, one already made of the same fields. */
  private answerAs(state: TicketState, given?: LookupReply): LookupReply {
    if (ENDED.has(state)) this.markEnding(false);
    this.latencyUs = (performance.now() - this.started) * 1e3;
    return (this.answer = given ?? { ticket: this.id, state, boundary: state === 'miss' ? 0 : this.boundary, matched: this.matched, tiers: this.tiers });
  }

  /** Each snapshot of the actor while it serves this ticket. */
  observe(state: TicketState): void {
    this.state = state;
    if (state === 'miss') this.boundary = 0;
    const records = this.host.records;
    const record = this.record;
    // A ticket the client has ended shows where its end takes it (recordAhead) until its actor
    // reports that end: a report of a state from before it (a worker's 'ready', drained after
    // the RELEASE was sent) does not take the history back.
    if (!this.endingNow || ENDED.has(state)) records.setState(record, state);
    if (state !== 'pending' && !this.left) {
      this.left = true;
      this.stopListening?.();
      this.stopListening = null;
      const answered = this.answer;
      if (answered === null) this.answerAs(state);
      else if (answered.state !== state) {
        this.host.mismatched(this, answered.state as TicketState, state);
        // It follows its actor: one that did not end stays open (and can be released).
        if (!ENDED.has(state) && this.endingNow) {
          this.endingNow = false;
          this.host.endingChanged(-1);
          records.setState(record, state);
        }
      }
      const boundary = this.boundary;
      records.setAnswer(record, boundary, Math.round(this.latencyUs));
      if (boundary !== null && boundary < this.matched) this.missed({ block: boundary, reason: 'beyond-boundary' });
      if (state === 'timedOut' || state === 'cancelled') this.missed({ block: this.matched, reason: state === 'timedOut' ? 'timed-out' : 'cancelled' });
      this.host.answered(this, this.latencyUs);
      this.resolveReply?.(this.answer!);
    }
    if (state === 'expired' && this.firstMiss === null) this.missed({ block: 0, reason: 'lease-expired' });
    if (ENDED.has(state)) this.host.ended(this);
    const w = this.waiter;
    if (w !== null && w.until(state)) {
      this.waiter = null;
      w.resolve(state);
    }
  }

  private missed(firstMiss: FirstMiss): void {
    this.firstMiss = firstMiss;
    this.host.records.setFirstMiss(this.record, firstMiss);
  }
}
