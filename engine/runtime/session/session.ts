/**
 * One engine connection's state: who it is, its registered pages, its tickets and its
 * operations in flight. Closing a session cancels its tickets, drains its I/O and only then
 * gives back its leases and unmaps its pages.
 */
import { randomBytes } from 'node:crypto';
import { closeSync } from 'node:fs';
import { IdTable } from '../collections/index.js';
import type { PageFile } from '../pages/index.js';
import { grantHex, grantKey, grants, writeGrant } from './grant-source.js';

export interface SessionTicket {
  cancel(): void;
}

/**
 * The session's tickets; remembers the one added last (a lookup's id, read by the connection right
 * after it opens one). In IdTables, not Maps: a ticket is added and deleted at every lookup (see
 * IdTable for what a Map's churn costs).
 */
export class TicketTable {
  lastAdded: number | null = null;
  private readonly tickets = new IdTable<SessionTicket>();
  /** Grants of ready tickets another session may restore, dropped with their ticket (so bounded by it). */
  private readonly grants = new IdTable<string>();

  get size(): number {
    return this.tickets.size;
  }

  get(id: number): SessionTicket | undefined {
    return this.tickets.get(id);
  }

  has(id: number): boolean {
    return this.tickets.has(id);
  }

  set(id: number, ticket: SessionTicket): this {
    this.lastAdded = id;
    this.tickets.set(id, ticket);
    return this;
  }

  delete(id: number): boolean {
    this.grants.delete(id);
    return this.tickets.delete(id);
  }

  /** The tickets (a new array). */
  values(): SessionTicket[] {
    return this.tickets.values();
  }

  /** Ticket `id`'s grant key, made now if it has none (the caller knows the ticket is, or is about to be, in this table). */
  private grantKeyOf(id: number, out?: Uint8Array, at?: number): string {
    let g = this.grants.get(id);
    if (g === undefined) this.grants.set(id, (g = grants.take(out, at)));
    else if (out !== undefined) writeGrant(g, out, at!);
    return g;
  }

  /** A grant for a ticket of this table (one per ticket), as 32 hex digits; null for a ticket it does not hold. */
  grant(id: number): string | null {
    return this.tickets.has(id) ? grantHex(this.grantKeyOf(id)) : null;
  }

  /**
   * A grant for ticket `id` that the caller adds to this table in the same turn (a lookup answered
   * before its ticket is filed: CacheService.lookup). Dropped with the ticket, as every grant.
   */
  grantAhead(id: number): string {
    return grantHex(this.grantKeyOf(id));
  }

  /**
   * Writes ticket `id`'s grant (its 16 bytes, made now if it has none) into `out` at `at`, as a
   * binary LOOKUP reply carries it; false, writing nothing, for a ticket the table does not hold,
   * unless `ahead` (it is added in this same turn, as for `grantAhead`).
   */
  writeGrant(id: number, out: Uint8Array, at: number, ahead = false): boolean {
    if (!ahead && !this.tickets.has(id)) return false;
    this.grantKeyOf(id, out, at);
    return true;
  }

  /** Whether `grant` (32 hex digits) is the ticket's (every digit compared, however early one differs). */
  admits(id: number, grant: string): boolean {
    const g = this.grants.get(id);
    const key = grantKey(grant);
    if (g === undefined || key === null) return false;
    let diff = 0;
    for (let i = 0; i < g.length; i++) diff |= g.charCodeAt(i) ^ key.charCodeAt(i);
    return diff === 0;
  }
}

/**
 * Cancels of the restores in flight. The connection names the ticket a restore consumes before
 * starting it (`expect`), so each cancel added then is found by that ticket (`forTicket`).
 */
export class RestoreCancels extends Set<() => void> {
  private expected: number | null = null;
  private readonly byTicket = new Map<number, () => void>();
  private readonly ticketOf = new Map<() => void, number>();

  expect(ticket: number | null): void {
    this.expected = ticket;
  }

  override add(cancel: () => void): this {
    if (this.expected !== null) {
      this.byTicket.set(this.expected, cancel);
      this.ticketOf.set(cancel, this.expected);
      this.expected = null;
    }
    return super.add(cancel);
  }

  override delete(cancel: () => void): boolean {
    const ticket = this.ticketOf.get(cancel);
    if (ticket !== undefined) {
      this.byTicket.delete(ticket);
      this.ticketOf.delete(cancel);
    }
    return super.delete(cancel);
  }

  forTicket(ticket: number): (() => void) | undefined {
    return this.byTicket.get(ticket);
  }
}

export class Session {
  pages: PageFile | null = null;
  readonly tickets = new TicketTable();
  /** Saves and restores in flight: each settles when its I/O has. */
  readonly ops = new Set<Promise<unknown>>();
  /** Cancels restores in flight (they then drain). */
  readonly cancels = new RestoreCancels();
  closed = false;
  private closing: Promise<void> | null = null;
  /** What the engine shows on the fd socket to deposit its pages' memfd into this session. */
  readonly fdToken = randomBytes(16).toString('hex');
  /** A deposited memfd not yet claimed by REGISTER_PAGES (at most one; a newer one replaces it). */
  private offeredFd: number | null = null;

  constructor(readonly id: number, readonly client: string, readonly profile: { engine: string; version: string }, readonly peer: { pid: number; uid: number } | null = null, readonly since = new Date()) {}

  /** Holds a memfd deposited for this session (closing any earlier unclaimed one); refused once closed. */
  offer(fd: number): boolean {
    if (this.closed) return false;
    if (this.offeredFd !== null) closeSync(this.offeredFd);
    this.offeredFd = fd;
    return true;
  }

  /** The deposited memfd, now the caller's to close. */
  takeOffered(): number | null {
    const fd = this.offeredFd;
    this.offeredFd = null;
    return fd;
  }

  /** Tracks an operation until it settles. */
  track<T>(op: Promise<T>): Promise<T> {
    this.ops.add(op);
    const done = () => this.ops.delete(op);
    op.then(done, done);
    return op;
  }

  /**
   * Cancel everything, wait for every I/O to land, then release the pages. Every caller (the
   * connection's close, the Manager's drain) gets the one drain, settled when it has.
   */
  close(): Promise<void> {
    return (this.closing ??= (async () => {
      this.closed = true;
      const fd = this.takeOffered();
      if (fd !== null) closeSync(fd);
      for (const c of [...this.cancels]) c();
      for (const t of this.tickets.values()) t.cancel();
      while (this.ops.size > 0) await Promise.allSettled([...this.ops]);
      this.pages?.close();
      this.pages = null;
    })());
  }
}
