/**
 * The Manager's operations over the cache as lifecycle actors: lookup tickets (served by a
 * bounded pool of running ticket actors, one ticket at a time each), saves and restores.
 * Socket-agnostic: the server decodes frames and calls these; specs can too. Every bound comes from the options (tickets open, records kept).
 */
import type { Counter } from 'prom-client';
import { createActor } from 'xstate';
import { BlockCache, namespaceId, type Probe, type Tier } from '../catalog/index.js';
import { IdTable } from '../collections/index.js';
import { OpeningTable, RankAgreement, restoreMachine, saveMachine, type BlockResult, type RestoreJob, type TicketEvent, type TicketState } from '../lifecycles/index.js';
import type { Logger } from '../log/index.js';
import type { RuntimeMetrics } from '../metrics/index.js';
import type { LookupRequest, RestoreRequest, SaveRequest } from '../protocol/index.js';
import { RequestRing } from '../records/index.js';
import type { Session } from '../session/index.js';
import { FLAG } from '../pages/index.js';
import { KeyMemo } from './key-memo.js';
import { OpenTicket, type LookupReply, type TicketHost, type TicketSlot } from './open-ticket.js';
import { MainTickets, WorkerTickets, type TicketActors, type TicketRunner } from './ticket-runner.js';

export type { LookupReply } from './open-ticket.js';

export interface ServiceOptions {
  leaseMs: number;
  maxTickets: number;
  records: number;
  /** Where the lookup-ticket actors run (default main; see ticket-runner.ts). */
  ticketActors?: TicketActors;
}

/** A refusal the client can act on, answered as an ERROR reply. */
export class RequestError extends Error {
  constructor(readonly reason: string, detail: string) {
    super(detail);
  }
}

/**
 * Adds each outcome's count to `counter` in one `inc` per distinct outcome: a restore or save
 * of 1,024 blocks hashes its labels a handful of times, not 1,024.
 */
function countOutcomes(counter: Counter<'outcome'>, outcomes: readonly string[]): void {
  const counts = new Map<string, number>();
  for (const o of outcomes) counts.set(o, (counts.get(o) ?? 0) + 1);
  for (const [outcome, n] of counts) counter.inc({ outcome }, n);
}

/** Blocks per restore window (one read and one copy call each). */
const RESTORE_WINDOW = 16;

export class CacheService {
  /** Open tickets by id: an IdTable, not a Map (a ticket is added and deleted at every lookup; see IdTable). */
  private readonly tickets = new IdTable<OpenTicket>(64);
  private readonly agreement = new RankAgreement();
  /** The ticket actors, in-process or on the ticket worker. */
  private readonly runner: TicketRunner;
  private nextTicket = 1;
  /** Tickets in `tickets` that are `ending` (see OpenTicket.ending). */
  private ending = 0;
  readonly records: RequestRing;
  readonly operations = { saves: 0, restores: 0 };
  private readonly keyMemo = new KeyMemo();
  /** What the tickets tell the service (one object for all of them). */
  private readonly ticketHost: TicketHost;
  /** Where an OPEN takes a ticket actor, from the machine (so a settled lookup is answered ahead). */
  private readonly openings = new OpeningTable();
  /** Tickets answered ahead whose actor has not taken the OPEN yet (bounded: each is an open ticket). */
  private toOpen: OpenTicket[] = [];
  /** Lookups answered ahead of their actor, and those whose actor then went elsewhere (a defect). */
  readonly ahead = { answered: 0, mismatched: 0 };

  constructor(readonly cache: BlockCache, private readonly options: ServiceOptions, private readonly metrics: RuntimeMetrics | null, private readonly logger: Logger) {
    this.records = new RequestRing(options.records);
    this.runner = options.ticketActors === 'worker' ? new WorkerTickets(options.maxTickets, options.leaseMs, logger) : new MainTickets(options.maxTickets, options.leaseMs);
    this.ticketHost = {
      cache,
      records: this.records,
      answered: (ticket, latencyUs) => {
        if (ticket.state === 'timedOut' || ticket.state === 'cancelled') this.agreement.leave(ticket.request, ticket.rank);
        this.observe(ticket, latencyUs);
      },
      endingChanged: (delta) => {
        this.ending += delta;
      },
      ended: (ticket) => {
        if (ticket.ending) this.ending--;
        this.tickets.delete(ticket.id);
        ticket.session.tickets.delete(ticket.id);
        this.runner.recycle(ticket);
      },
      after: (state, type) => this.openings.after(state, type),
      mismatched: (ticket, answered, actual) => {
        this.ahead.mismatched++;
        logger.error('lookup-answer-mismatch', { ticket: ticket.id, session: ticket.session.id, answered, actual });
      },
    };
    void cache.ssd?.preallocation.then((p) => {
      const usable = cache.ssd!.pool.usable;
      if (p.error) logger.warn('ssd-preallocated', { ...p, usableSlots: usable, slots: cache.ssd!.slots });
      else if (p.method !== 'present') logger.info('ssd-preallocated', { ...p, usableSlots: usable });
    });
  }

  /** Tickets open for their clients: those a client has ended (released, cancelled, answered as ended) are not, though their actor's report may be on its way. */
  get openTickets(): number {
    return this.tickets.size - this.ending;
  }

  /** Where the ticket actors run. */
  get ticketActors(): TicketActors {
    return this.runner.where;
  }

  /** The ticket worker's thread id in the kernel (null in-process), for the serving log line and status. */
  get ticketWorkerThread(): number | null {
    return this.runner.workerThread;
  }

  /** Ticket actors alive (serving or idle), for the status and the bench. */
  get xstate(): { actors: number } {
    return { actors: this.runner.actors };
  }

  /** The in-process ticket actors' timers waiting (deadlines and leases; 0 when they run on the worker, whose timers are its own). */
  get timers(): number {
    return this.runner.timers;
  }

  /** Resolves once lookups can be served at rate (the ticket worker runs); the Manager waits for it before it listens. */
  get ready(): Promise<void> {
    return this.runner.ready;
  }

  /** Stops the ticket actors (the Manager, once its sessions have drained). */
  close(): Promise<void> {
    return this.runner.close();
  }

  /** Whether ticket `id` is open in `session` for its client and answered (it has left pending, or was answered ahead; not ended by the client). */
  answered(session: Session, id: number): boolean {
    const t = this.tickets.get(id);
    return t !== undefined && t.session === session && t.answer !== null && !t.ending;
  }

  /** Whether `tickets` more lookups could open now (the table's bound). */
  hasRoom(tickets: number): boolean {
    if (this.tickets.size + tickets <= this.options.maxTickets) return true;
    // Tickets that ended on the worker leave the table when its reports are taken in.
    this.runner.poll();
    return this.tickets.size + tickets <= this.options.maxTickets;
  }

  /**
   * Opens a ticket; answers when it leaves pending (ready, miss, timed out or cancelled): at
   * once, without a promise, when it left pending while it opened (a settled single rank, the
   * common case: the server replies in the same turn), else with a promise.
   *
   * With `early`, a ticket answered at once is answered through it, before the ticket's
   * bookkeeping (its record, its tables, its leases, its actor's OPEN), which follows in the same
   * call (no other request is served in between, so nothing sees the reply before the leases it
   * promises); the call then returns null. The reply leaves as soon as the probe has decided it:
   * where the Manager runs on a core of its own, the client's wait ends there.
   */
  lookup(session: Session, req: LookupRequest): LookupReply | Promise<LookupReply>;
  lookup(session: Session, req: LookupRequest, early: (reply: LookupReply) => void): LookupReply | Promise<LookupReply> | null;
  lookup(session: Session, req: LookupRequest, early?: (reply: LookupReply) => void): LookupReply | Promise<LookupReply> | null {
    if (session.closed) throw new RequestError('session-closed', 'the session is closing');
    if (this.runner.failed !== null) throw new RequestError('tickets-unavailable', `${this.runner.failed}; restart the Manager`);
    // What the worker's actors did since the last drain (tickets that ended free their slots and
    // their room): taken in now only if the table is full, else once this lookup's reply is
    // written. At 10,000 lookups/s the worker reports a millisecond's tickets at a time, and the
    // lookup that drained them before its reply paid for all of them.
    if (this.tickets.size >= this.options.maxTickets) this.runner.poll();
    else this.runner.pollSoon();
    if (this.tickets.size >= this.options.maxTickets) throw new RequestError('busy', `${this.tickets.size} tickets open (limit ${this.options.maxTickets}); release or restore some first`);
    const started = performance.now();
    const ns = namespaceId(req.namespace);
    const keys = this.keyMemo.chain(ns, req.hashes);
    const id = this.nextTicket++;
    // A single rank whose match is settled now, with no other ticket of its request waiting:
    // its boundary is its own match, exactly what joining and reporting would agree on.
    const first = this.cache.probe(keys);
    const solo = req.worldSize === 1 && !first.pending && !this.agreement.has(req.request);
    if (solo) {
      const slot = this.runner.take();
      // Where the OPEN takes the slot's actor: a ticket it settles is answered now.
      const to = this.openings.targetOf(slot.state, first.matched);
      if (to === 'ready' || to === 'miss') {
        const reply = { ticket: id, state: to, boundary: to === 'ready' ? first.matched : 0, matched: first.matched, tiers: first.tiers };
        if (early === undefined) return this.openAhead(session, req, id, ns, keys, first, slot, reply, started);
        // Filed even if writing the reply threw: the ticket then ends with its session, its slot and leases given back.
        try {
          early(reply);
        } finally {
          this.openAhead(session, req, id, ns, keys, first, slot, reply, started);
        }
        return null;
      }
      const ticket = this.openTicket(session, req, id, ns, keys, started);
      this.seat(ticket, slot);
      this.take(ticket, first);
      slot.send({ type: 'OPEN', deadlineMs: req.deadlineMs, agreed: first.matched });
      return ticket.reply();
    }
    const ticket = this.openTicket(session, req, id, ns, keys, started);
    const problem = this.agreement.join(req.request, req.rank, req.worldSize, ticket);
    if (problem) {
      // In the history as refused: it never becomes a ticket, so it must not stay "pending".
      this.records.setState(ticket.record, 'refused');
      throw new RequestError(problem, `request '${req.request}' rank ${req.rank}: ${problem}`);
    }
    const slot = this.runner.take();
    this.seat(ticket, slot);
    slot.send({ type: 'OPEN', deadlineMs: req.deadlineMs });
    const evaluate = () => {
      if (ticket.state !== 'pending' || ticket.ending) return;
      const probe = this.cache.probe(keys);
      if (probe.pending) {
        // Woken only when the block it waits on settles, not on every save's.
        ticket.stopListening?.();
        ticket.stopListening = this.cache.onSettled(keys[probe.firstMiss!.block]!, evaluate);
        return;
      }
      ticket.stopListening?.();
      ticket.stopListening = null;
      this.take(ticket, probe);
      this.agreement.report(req.request, req.rank, probe.matched);
    };
    evaluate();
    return ticket.reply();
  }

  /** A new ticket and its record in the history (pending). */
  private openTicket(session: Session, req: LookupRequest, id: number, ns: string, keys: readonly string[], started: number): OpenTicket {
    const record = this.records.open({ ticket: id, request: req.request, rank: req.rank, session: session.id, atMs: Date.now(), namespace: ns, blocks: keys.length, state: 'pending' });
    return new OpenTicket(id, session, keys, req.rank, req.request, record, started, this.ticketHost);
  }

  /** The ticket in the service's and its session's tables, served by `slot`'s actor. */
  private seat(ticket: OpenTicket, slot: TicketSlot): void {
    this.tickets.set(ticket.id, ticket);
    ticket.session.tickets.set(ticket.id, ticket);
    slot.ticket = ticket;
    ticket.slot = slot;
  }

  /** The ticket leases what `probe` matched, and its record says so. */
  private take(ticket: OpenTicket, probe: Probe): void {
    this.cache.pin(probe.blocks);
    ticket.leased = probe.blocks;
    ticket.matched = probe.matched;
    ticket.tiers = probe.tiers;
    ticket.firstMiss = probe.firstMiss;
    this.records.setMatch(ticket.record, probe.matched, probe.tiers, probe.firstMiss);
  }

  /**
   * A solo ticket answered `reply` (ready or miss: where the OPEN takes its actor): opened, seated,
   * leased, and its actor handed the OPEN (the worker's now, an in-process one once this turn's
   * replies are written).
   */
  private openAhead(session: Session, req: LookupRequest, id: number, ns: string, keys: readonly string[], first: Probe, slot: TicketSlot, reply: LookupReply & { state: 'ready' | 'miss' }, started: number): LookupReply {
    const ticket = this.openTicket(session, req, id, ns, keys, started);
    this.seat(ticket, slot);
    this.take(ticket, first);
    this.ahead.answered++;
    ticket.answerAhead(reply, { type: 'OPEN', deadlineMs: req.deadlineMs, agreed: first.matched });
    if (this.runner.queued) ticket.open();
    else {
      if (this.toOpen.length === 0) queueMicrotask(this.openAll);
      this.toOpen.push(ticket);
    }
    return reply;
  }

  /** Hands every ticket answered ahead its OPEN (a microtask after the turn that answered them). */
  private readonly openAll = (): void => {
    const tickets = this.toOpen;
    this.toOpen = [];
    // Each ticket by itself: one that throws must not leave the others without their actor's step
    // (a ticket never handed its OPEN would hold its leases with no lease timer).
    for (const t of tickets) {
      try {
        t.open();
      } catch (error) {
        this.logger.error('lookup-open-failed', { ticket: t.id, session: t.session.id, detail: error instanceof Error ? error.message : String(error) });
        t.abandon();
      }
    }
  };

  /**
   * Records a refused handshake in the lookup history, so `orbitkv requests` shows why an
   * engine's lookups never arrived (every one of them would have been a miss).
   */
  recordRefusal(client: string, reason: 'profile-rejected', detail: string): void {
    this.records.push({ ticket: 0, request: client, rank: 0, session: 0, atMs: Date.now(), namespace: detail, blocks: 0, state: 'refused', firstMiss: { block: 0, reason } });
  }

  /**
   * Releases a ticket; answers its state once the actor has taken the RELEASE (at once in-process;
   * see `OpenTicket.ask`). `answered`: false for a release whose state nobody is told (the binary
   * RELEASE), which then answers the state it knows now.
   */
  release(session: Session, id: number, answered = true): TicketState | Promise<TicketState> {
    return this.owned(session, id).askRelease(answered);
  }

  /** Cancels a ticket; answers as `release` does. */
  cancel(session: Session, id: number): TicketState | Promise<TicketState> {
    return this.owned(session, id).askCancel();
  }

  /** Saves blocks from the session's pages; resolves once committed (or failed) with a result per block. */
  async save(session: Session, req: SaveRequest): Promise<{ state: string; blocks: string[] }> {
    const pages = session.pages;
    if (!pages) throw new RequestError('no-pages', 'register pages before saving');
    const bad = req.pages.findIndex((p) => p >= pages.pages);
    if (bad >= 0) throw new RequestError('bad-page', `pages[${bad}] = ${req.pages[bad]} is beyond the ${pages.pages} registered pages`);
    const ns = namespaceId(req.namespace);
    // Through the lookups' memo: a chain just saved is what the next lookups ask about, and
    // they then find its keys computed.
    const keys = this.keyMemo.chain(ns, req.hashes);
    const actor = createActor(saveMachine, {
      input: {
        keys,
        window: Math.max(1, Math.floor(this.cache.dram.slots / 4)),
        stage: (key, i) => this.cache.stage(key, (into) => pages.readPage(req.pages[i]!, into)),
        write: (ks) => this.cache.writeBack(ks),
        commit: (wbs) => this.cache.commitWrites(wbs),
      },
    });
    this.operations.saves++;
    const done = new Promise<{ state: string; blocks: string[] }>((resolve) => {
      actor.subscribe((snap) => {
        if (snap.status !== 'done') return;
        // A block this save staged and never offered to the SSD tier (the save failed first)
        // must not stay unevictable in DRAM.
        keys.forEach((k, i) => {
          if (snap.context.staged[i] === 'stored' && snap.context.persisted[i] == null) this.cache.abandonWriteBack(k);
        });
        const blocks = keys.map((_, i) => {
          const staged = snap.context.staged[i];
          const persisted = snap.context.persisted[i];
          if (staged !== 'stored') return staged ?? snap.context.error ?? 'failed';
          return persisted === 'persisted' || persisted === 'dram-only' ? 'stored' : `staged:${persisted ?? 'unknown'}`;
        });
        if (this.metrics) countOutcomes(this.metrics.saves, blocks);
        resolve({ state: snap.value as string, blocks });
      });
    });
    actor.start();
    try {
      return await session.track(done);
    } finally {
      this.operations.saves--;
    }
  }

  /** Restores a ready ticket's blocks into the session's pages; `owner` opened the ticket (another session when granted). */
  async restore(session: Session, req: RestoreRequest, owner: Session = session): Promise<{ state: string; blocks: string[] }> {
    const t = this.owned(owner, req.ticket);
    const pages = session.pages;
    if (!pages) throw new RequestError('no-pages', 'register pages before restoring');
    // Ready as answered, and not consumed yet (an actor on the worker may have taken it further: the
    // CONSUME's answer below says).
    const known = t.consuming ? 'restoring' : (t.answer?.state ?? 'pending');
    if (known !== 'ready') throw new RequestError('ticket-not-ready', `ticket ${t.id} is ${known}`);
    const boundary = t.boundary ?? 0;
    if (req.pages.length > boundary) throw new RequestError('beyond-boundary', `${req.pages.length} pages for a ticket whose boundary is ${boundary}`);
    const bad = req.pages.findIndex((p) => p >= pages.pages);
    if (bad >= 0) throw new RequestError('bad-page', `pages[${bad}] = ${req.pages[bad]} is beyond the ${pages.pages} registered pages`);
    const consuming = t.askConsume();
    const keys = t.keys.slice(0, req.pages.length);
    let cancelled = false;
    // Holds this restore has on DRAM slots between a window's read and its copy, counted per key:
    // a key can come twice (a chain that repeats a hash, or read-ahead windows that overlap), and
    // each take raised the block's busy count once, so each is given back once.
    const busy = new Map<string, number>();
    const hold = (k: string) => busy.set(k, (busy.get(k) ?? 0) + 1);
    const unhold = (k: string) => {
      const n = busy.get(k);
      if (n === undefined) return;
      if (n === 1) busy.delete(k);
      else busy.set(k, n - 1);
      this.cache.idle(k);
    };
    // Windows of at most 16 blocks, as many read ahead as fill half of DRAM (the two windows of
    // a quarter each that restores held before they streamed): the SSD queue stays full.
    const window = Math.max(1, Math.min(RESTORE_WINDOW, Math.floor(this.cache.dram.slots / 4)));
    const job: RestoreJob = {
      blocks: keys.length,
      window,
      ahead: Math.max(2, Math.floor(this.cache.dram.slots / 2 / window)),
      // A window of DRAM hits is answered in this turn (no promise per block); only blocks read
      // from SSD wait.
      read: async (from, to) => {
        for (let i = from; i < to; i++) pages.setFlag(req.pages[i]!, FLAG.pending);
        const slots = new Array<Buffer | string>(to - from);
        let waits: Promise<void>[] | null = null;
        const take = (i: number, k: string, r: Awaited<ReturnType<BlockCache['inDram']>>) => {
          if ('slot' in r) {
            hold(k);
            slots[i] = r.slot;
          } else slots[i] = r.reason;
        };
        for (let i = 0; i < to - from; i++) {
          const k = keys[from + i]!;
          if (cancelled) {
            slots[i] = 'cancelled';
            continue;
          }
          const now = this.cache.inDramNow(k);
          if (now !== null) take(i, k, now);
          else (waits ??= []).push(this.cache.inDram(k).then((r) => take(i, k, r)));
        }
        if (waits !== null) await Promise.all(waits);
        return slots;
      },
      // The window's served blocks go to their pages in one request (one promise, one native
      // call); the others are flagged FAILED in every layer at once (the engine recomputes them).
      // DRAM → pages is a plain copy, no checksum: the DRAM tier holds only verified bytes (a
      // save's CRC-32C is computed in the same pass that gathers them from the pages, and a block
      // read from SSD is checked against the index before `inDram` serves it).
      copy: async (from, slots) => {
        const results: BlockResult[] = new Array(slots.length);
        const into: number[] = [];
        const served: Buffer[] = [];
        for (let i = 0; i < slots.length; i++) {
          const s = slots[i]!;
          if (typeof s === 'string' || cancelled) {
            pages.setFlag(req.pages[from + i]!, FLAG.failed);
            results[i] = typeof s === 'string' ? s : 'cancelled';
          } else {
            into.push(req.pages[from + i]!);
            served.push(s);
            results[i] = 'restored';
          }
        }
        try {
          if (into.length > 0) await pages.writePages(into, served);
        } finally {
          // Only the holds this window took (a slot, not a reason): another window's stay.
          for (let i = 0; i < slots.length; i++) if (typeof slots[i] !== 'string') unhold(keys[from + i]!);
        }
        return results;
      },
      cancel: () => {
        cancelled = true;
      },
    };
    const actor = createActor(restoreMachine, { input: { job } });
    // Filed before any await (the connection finds it by its ticket); a cancel that comes while the
    // CONSUME is answered is the restore's first event.
    let started = false;
    let cancelledEarly = false;
    const cancel = () => (started ? actor.send({ type: 'CANCEL' }) : void (cancelledEarly = true));
    session.cancels.add(cancel);
    this.operations.restores++;
    const done = new Promise<{ state: string; blocks: string[] }>((resolve) => {
      actor.subscribe((s) => {
        if (s.status !== 'done') return;
        session.cancels.delete(cancel);
        // Windows read but never copied (cancelled between the two) give their holds back here.
        for (const [k, n] of busy) for (let j = 0; j < n; j++) this.cache.idle(k);
        busy.clear();
        t.consumed();
        const blocks = keys.map((_, i) => s.context.results[i] ?? 'cancelled');
        if (this.metrics) countOutcomes(this.metrics.restores, blocks);
        resolve({ state: s.value as string, blocks });
      });
    });
    // No I/O starts before the actor has taken the CONSUME: a ticket whose lease expired first has
    // given its leases back, and its blocks may be gone.
    const run = async () => {
      const state = consuming instanceof Promise ? await consuming : consuming;
      if (state !== 'restoring') {
        session.cancels.delete(cancel);
        throw new RequestError('ticket-not-ready', `ticket ${t.id} is ${state}`);
      }
      started = true;
      actor.start();
      if (cancelledEarly) actor.send({ type: 'CANCEL' });
      return done;
    };
    try {
      return await session.track(run());
    } finally {
      this.operations.restores--;
    }
  }

  private owned(session: Session, id: number): OpenTicket {
    const t = this.tickets.get(id);
    // One the client has ended (or that was answered ended) is not open for it, though its actor's
    // report may not have come yet.
    if (!t || t.session !== session || t.ending) throw new RequestError('unknown-ticket', `no open ticket ${id} in this session`);
    // A ticket answered ahead is in its actor's state before anything reads or sends to it.
    t.open();
    return t;
  }

  private observe(ticket: OpenTicket, latencyUs: number): void {
    const m = this.metrics;
    if (!m) return;
    m.lookups.add(ticket.state);
    m.lookupLatency.observe(latencyUs / 1e6);
    if (ticket.tiers.dram > 0) m.blockHits.add('dram' satisfies Tier, ticket.tiers.dram);
    if (ticket.tiers.ssd > 0) m.blockHits.add('ssd' satisfies Tier, ticket.tiers.ssd);
    if (ticket.firstMiss !== null) m.blockMisses.add(ticket.firstMiss.reason);
    void this.logger;
  }
}
