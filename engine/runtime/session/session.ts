/**
 * One engine connection's state: who it is, its registered pages, its tickets and its
 * operations in flight. Closing a session cancels its tickets, drains its I/O and only then
 * gives back its leases and unmaps its pages.
 */
import type { PageFile } from '../pages/index.js';

export interface SessionTicket {
  cancel(): void;
}

export class Session {
  pages: PageFile | null = null;
  readonly tickets = new Map<number, SessionTicket>();
  /** Saves and restores in flight: each settles when its I/O has. */
  readonly ops = new Set<Promise<unknown>>();
  /** Cancels restores in flight (they then drain). */
  readonly cancels = new Set<() => void>();
  closed = false;
  private closing: Promise<void> | null = null;

  constructor(readonly id: number, readonly client: string, readonly profile: { engine: string; version: string }, readonly peer: { pid: number; uid: number } | null = null, readonly since = new Date()) {}

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
      for (const c of [...this.cancels]) c();
      for (const t of [...this.tickets.values()]) t.cancel();
      while (this.ops.size > 0) await Promise.allSettled([...this.ops]);
      this.pages?.close();
      this.pages = null;
    })());
  }
}
