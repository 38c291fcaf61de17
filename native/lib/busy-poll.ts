/**
 * The JS thread's event loop kept polling for a window after each touch(), instead of sleeping
 * in epoll_wait (`orbitkv serve --busy-poll-us`). A request that comes within the window is read on
 * a core that did not go idle: no wake-up (in a VM, no vCPU exit on HLT and re-entry), and the
 * caches the last request left. The price is the thread's core, spinning for the whole window.
 *
 * @example
 * const poll = new BusyPoll(2_000_000); // 2 ms
 * socket.on('data', (chunk) => { poll.touch(); handle(chunk); });
 * poll.stats(); // { windows: 12, pollingNs: 25_100_000, turns: 31_544 }
 * poll.close();
 */
import { binding } from './binding.js';

interface RawBusyPoll {
  touch(): void;
  stats(): [number, number, number];
  close(): void;
}

/** The longest window (ns): 10 s. */
export const BUSY_POLL_MAX_NS = 10_000_000_000;

export interface BusyPollStats {
  /** Windows opened: touches that found the loop sleeping. */
  windows: number;
  /** Nanoseconds spent polling, the open window's so far included. */
  pollingNs: number;
  /** Loop turns taken while polling (each one epoll_wait that did not sleep). */
  turns: number;
}

export class BusyPoll {
  private raw: RawBusyPoll | null;

  /** Polls for `windowNs` (an integer in 1..BUSY_POLL_MAX_NS) after each touch(). */
  constructor(readonly windowNs: number) {
    if (!Number.isInteger(windowNs) || windowNs < 1 || windowNs > BUSY_POLL_MAX_NS) throw new RangeError(`windowNs must be an integer in 1..${BUSY_POLL_MAX_NS}, got ${windowNs}`);
    const Cls = (binding() as unknown as { BusyPoll: new (windowNs: number) => RawBusyPoll }).BusyPoll;
    this.raw = new Cls(windowNs);
  }

  /** Keeps the loop polling until windowNs from now. After close(), nothing. */
  touch(): void {
    this.raw?.touch();
  }

  stats(): BusyPollStats {
    if (this.raw === null) return { windows: this.closedAt[0], pollingNs: this.closedAt[1], turns: this.closedAt[2] };
    const [windows, pollingNs, turns] = this.raw.stats();
    return { windows, pollingNs, turns };
  }

  /** Stops polling and closes the loop handle (idempotent); stats() keeps the totals. */
  close(): void {
    if (this.raw === null) return;
    this.closedAt = this.raw.stats();
    this.raw.close();
    this.raw = null;
  }

  private closedAt: [number, number, number] = [0, 0, 0];
}
