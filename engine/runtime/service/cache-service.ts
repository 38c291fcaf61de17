/**
 * The Manager's operations over the cache, one lifecycle actor per operation: lookup tickets,
 * saves and restores. Socket-agnostic: the server decodes frames and calls these; specs can
 * too. Every bound comes from the options (tickets open, records kept).
 */
import { createActor, type ActorRefFrom } from 'xstate';
import { BlockCache, namespaceId, type Tier } from '../catalog/index.js';
import { RankAgreement, lookupTicketMachine, restoreMachine, saveMachine, type RestoreJob, type TicketState } from '../lifecycles/index.js';
import type { Logger } from '../log/index.js';
import type { RuntimeMetrics } from '../metrics/index.js';
import type { LookupRequest, RestoreRequest, SaveRequest } from '../protocol/index.js';
import { RequestRing, type LookupRecord } from '../records/index.js';
import type { Session } from '../session/index.js';

export interface ServiceOptions {
  leaseMs: number;
  maxTickets: number;
  records: number;
}

/** A refusal the client can act on, answered as an ERROR reply. */
export class RequestError extends Error {
  constructor(readonly reason: string, detail: string) {
    super(detail);
  }
}

interface Ticket {
  id: number;
  session: Session;
  keys: string[];
  leased: string[];
  rank: number;
  request: string;
  actor: ActorRefFrom<typeof lookupTicketMachine>;
  record: LookupRecord;
  tiers: { dram: number; ssd: number };
  matched: number;
}

export interface LookupReply {
  ticket: number;
  state: TicketState;
  boundary: number | null;
  matched: number;
  tiers: { dram: number; ssd: number };
}

export class CacheService {
  private readonly tickets = new Map<number, Ticket>();
  private readonly agreement = new RankAgreement();
  private nextTicket = 1;
  readonly records: RequestRing;
  readonly operations = { saves: 0, restores: 0 };

  constructor(readonly cache: BlockCache, private readonly options: ServiceOptions, private readonly metrics: RuntimeMetrics | null, private readonly logger: Logger) {
    this.records = new RequestRing(options.records);
  }

  get openTickets(): number {
    return this.tickets.size;
  }

  /** Opens a ticket; resolves when it leaves pending (ready, miss, timed out or cancelled). */
  lookup(session: Session, req: LookupRequest): Promise<LookupReply> {
    if (session.closed) throw new RequestError('session-closed', 'the session is closing');
    if (this.tickets.size >= this.options.maxTickets) throw new RequestError('busy', `${this.tickets.size} tickets open (limit ${this.options.maxTickets}); release or restore some first`);
    const started = process.hrtime.bigint();
    const ns = namespaceId(req.namespace);
    const keys = req.hashes.map((h) => BlockCache.key(ns, h));
    const id = this.nextTicket++;
    const record: LookupRecord = { ticket: id, request: req.request, rank: req.rank, session: session.id, at: new Date().toISOString(), namespace: ns, blocks: keys.length, matched: 0, boundary: null, state: 'pending', tiers: { dram: 0, ssd: 0 }, firstMiss: null, latencyUs: null };
    this.records.push(record);
    let stopListening: (() => void) | null = null;
    const ticket = {} as Ticket;
    const effects = {
      trim: (boundary: number) => {
        this.cache.unpin(ticket.leased.slice(boundary));
        ticket.leased = ticket.leased.slice(0, boundary);
      },
      releaseAll: () => {
        this.cache.unpin(ticket.leased);
        ticket.leased = [];
      },
    };
    const actor = createActor(lookupTicketMachine, { input: { effects, deadlineMs: req.deadlineMs, leaseMs: this.options.leaseMs } });
    Object.assign(ticket, { id, session, keys, leased: [], rank: req.rank, request: req.request, actor, record, tiers: { dram: 0, ssd: 0 }, matched: 0 });
    const problem = this.agreement.join(req.request, req.rank, req.worldSize, { agreed: (b) => actor.send({ type: 'AGREED', boundary: b }), defer: () => actor.send({ type: 'DEFER' }) });
    if (problem) {
      // In the history as refused: it never becomes a ticket, so it must not stay "pending".
      record.state = 'refused';
      throw new RequestError(problem, `request '${req.request}' rank ${req.rank}: ${problem}`);
    }
    this.tickets.set(id, ticket);
    session.tickets.set(id, { cancel: () => actor.send({ type: 'CANCEL' }) });

    return new Promise<LookupReply>((resolve) => {
      let replied = false;
      actor.subscribe((snap) => {
        const state = snap.value as TicketState;
        record.state = state;
        if (state !== 'pending' && !replied) {
          replied = true;
          stopListening?.();
          stopListening = null;
          record.boundary = snap.context.boundary;
          const latency = Number(process.hrtime.bigint() - started) / 1e3;
          record.latencyUs = Math.round(latency);
          if (snap.context.boundary !== null && snap.context.boundary < ticket.matched) record.firstMiss = { block: snap.context.boundary, reason: 'beyond-boundary' };
          if (state === 'timedOut' || state === 'cancelled') {
            record.firstMiss = { block: ticket.matched, reason: state === 'timedOut' ? 'timed-out' : 'cancelled' };
            this.agreement.leave(req.request, req.rank);
          }
          this.observe(record, state, latency);
          resolve({ ticket: id, state, boundary: snap.context.boundary, matched: ticket.matched, tiers: ticket.tiers });
        }
        if (state === 'expired' && record.firstMiss === null) record.firstMiss = { block: 0, reason: 'lease-expired' };
        if (snap.status === 'done') {
          this.tickets.delete(id);
          session.tickets.delete(id);
        }
      });
      actor.start();
      const evaluate = () => {
        if (actor.getSnapshot().value !== 'pending') return;
        const probe = this.cache.probe(keys);
        if (probe.pending) {
          // Woken only when the block it waits on settles, not on every save's.
          stopListening?.();
          stopListening = this.cache.onSettled(keys[probe.firstMiss!.block]!, evaluate);
          return;
        }
        stopListening?.();
        stopListening = null;
        const matched = keys.slice(0, probe.matched);
        this.cache.pin(matched);
        ticket.leased = matched;
        ticket.matched = probe.matched;
        ticket.tiers = probe.tiers;
        record.matched = probe.matched;
        record.tiers = probe.tiers;
        record.firstMiss = probe.firstMiss;
        this.agreement.report(req.request, req.rank, probe.matched);
      };
      evaluate();
    });
  }

  /**
   * Records a refused handshake in the lookup history, so `orbitkv requests` shows why an
   * engine's lookups never arrived (every one of them would have been a miss).
   */
  recordRefusal(client: string, reason: 'profile-rejected', detail: string): void {
    this.records.push({ ticket: 0, request: client, rank: 0, session: 0, at: new Date().toISOString(), namespace: detail, blocks: 0, matched: 0, boundary: null, state: 'refused', tiers: { dram: 0, ssd: 0 }, firstMiss: { block: 0, reason }, latencyUs: null });
  }

  release(session: Session, id: number): TicketState {
    const t = this.owned(session, id);
    t.actor.send({ type: 'RELEASE' });
    return t.actor.getSnapshot().value as TicketState;
  }

  cancel(session: Session, id: number): TicketState {
    const t = this.owned(session, id);
    t.actor.send({ type: 'CANCEL' });
    return t.actor.getSnapshot().value as TicketState;
  }

  /** Saves blocks from the session's pages; resolves once committed (or failed) with a result per block. */
  async save(session: Session, req: SaveRequest): Promise<{ state: string; blocks: string[] }> {
    const pages = session.pages;
    if (!pages) throw new RequestError('no-pages', 'register pages before saving');
    const bad = req.pages.findIndex((p) => p >= pages.pages);
    if (bad >= 0) throw new RequestError('bad-page', `pages[${bad}] = ${req.pages[bad]} is beyond the ${pages.pages} registered pages`);
    const ns = namespaceId(req.namespace);
    const keys = req.hashes.map((h) => BlockCache.key(ns, h));
    const actor = createActor(saveMachine, {
      input: {
        keys,
        window: Math.max(1, Math.floor(this.cache.dram.slots / 4)),
        stage: (key, i) => this.cache.stage(key, (into) => pages.readPage(req.pages[i]!, into)),
        persist: (ks) => this.cache.persist(ks),
      },
    });
    this.operations.saves++;
    const done = new Promise<{ state: string; blocks: string[] }>((resolve) => {
      actor.subscribe((snap) => {
        if (snap.status !== 'done') return;
        const blocks = keys.map((_, i) => {
          const staged = snap.context.staged[i];
          const persisted = snap.context.persisted[i];
          if (staged !== 'stored') return staged ?? snap.context.error ?? 'failed';
          return persisted === 'persisted' || persisted === 'dram-only' ? 'stored' : `staged:${persisted ?? 'unknown'}`;
        });
        for (const b of blocks) this.metrics?.saves.inc({ outcome: b });
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
    const snap = t.actor.getSnapshot();
    if (snap.value !== 'ready') throw new RequestError('ticket-not-ready', `ticket ${t.id} is ${String(snap.value)}`);
    const boundary = snap.context.boundary ?? 0;
    if (req.pages.length > boundary) throw new RequestError('beyond-boundary', `${req.pages.length} pages for a ticket whose boundary is ${boundary}`);
    const bad = req.pages.findIndex((p) => p >= pages.pages);
    if (bad >= 0) throw new RequestError('bad-page', `pages[${bad}] = ${req.pages[bad]} is beyond the ${pages.pages} registered pages`);
    t.actor.send({ type: 'CONSUME' });
    const keys = t.keys.slice(0, req.pages.length);
    let cancelled = false;
    // Blocks whose DRAM slot this restore holds busy between its read and its copy.
    const busy = new Set<string>();
    const job: RestoreJob = {
      blocks: keys.length,
      window: Math.max(1, Math.floor(this.cache.dram.slots / 4)),
      read: async (from, to) => {
        await Promise.all(req.pages.slice(from, to).map((p) => pages.setFlag(p, 0)));
        return Promise.all(keys.slice(from, to).map(async (k) => {
          if (cancelled) return 'cancelled';
          const r = await this.cache.inDram(k);
          if (!('slot' in r)) return r.reason;
          busy.add(k);
          return r.slot;
        }));
      },
      copy: (from, slots) => Promise.all(slots.map(async (s, i) => {
        const k = keys[from + i]!;
        try {
          // A block not restored is flagged FAILED in every layer at once: the engine recomputes it.
          if (typeof s === 'string' || cancelled) return await pages.setFlag(req.pages[from + i]!, 2).then(() => (typeof s === 'string' ? s : 'cancelled'));
          await pages.writePage(req.pages[from + i]!, s);
          await pages.setFlag(req.pages[from + i]!, 1);
          return 'restored';
        } finally {
          if (busy.delete(k)) this.cache.idle(k);
        }
      })),
      cancel: () => {
        cancelled = true;
      },
    };
    const actor = createActor(restoreMachine, { input: { job } });
    const cancel = () => actor.send({ type: 'CANCEL' });
    session.cancels.add(cancel);
    this.operations.restores++;
    const done = new Promise<{ state: string; blocks: string[] }>((resolve) => {
      actor.subscribe((s) => {
        if (s.status !== 'done') return;
        session.cancels.delete(cancel);
        for (const k of busy) this.cache.idle(k);
        busy.clear();
        t.actor.send({ type: 'CONSUMED' });
        const blocks = keys.map((_, i) => s.context.results[i] ?? 'cancelled');
        for (const b of blocks) this.metrics?.restores.inc({ outcome: b });
        resolve({ state: s.value as string, blocks });
      });
    });
    actor.start();
    try {
      return await session.track(done);
    } finally {
      this.operations.restores--;
    }
  }

  private owned(session: Session, id: number): Ticket {
    const t = this.tickets.get(id);
    if (!t || t.session !== session) throw new RequestError('unknown-ticket', `no open ticket ${id} in this session`);
    return t;
  }

  private observe(record: LookupRecord, state: TicketState, latencyUs: number): void {
    const m = this.metrics;
    if (!m) return;
    m.lookups.inc({ outcome: state });
    m.lookupLatency.observe(latencyUs / 1e6);
    const tiers: Tier[] = ['dram', 'ssd'];
    for (const tier of tiers) if (record.tiers[tier] > 0) m.blockHits.inc({ tier }, record.tiers[tier]);
    if (record.firstMiss) m.blockMisses.inc({ reason: record.firstMiss.reason });
    void this.logger;
  }
}
