/**
 * The clock the ticket actors' `after` deadlines and lease expiries run on (xstate v5's
 * `createActor(machine, { clock })`): one indexed min-heap of due times behind a single Node
 * timer, instead of a Node timer per `after`. A lookup schedules a deadline or lease and
 * almost always cancels it moments later; here that is a heap insert and removal (no Timeout
 * object, no timer list), and the Node timer is re-armed only when a new due time comes
 * before the one it is armed for.
 *
 * Bounded: it holds only the timers still to fire (each ticket actor has at most one `after`
 * armed), and refuses past `capacity` (xstate then stops that actor; the service ends its
 * ticket with its leases given back). While the heap is empty the Node timer may stay armed
 * but unref'd, so an idle clock keeps no process alive.
 */
import type { ActorOptions, AnyActorLogic } from 'xstate';

/** xstate's clock interface (not exported by name): what `createActor(machine, { clock })` takes. */
type Clock = NonNullable<ActorOptions<AnyActorLogic>['clock']>;

interface Entry {
  due: number;
  /** Insertion order: timers due at the same instant fire in the order they were set. */
  seq: number;
  fn: () => void;
  /** The entry's place in the heap; -1 once it fired or was cleared. */
  at: number;
}

export interface TicketClockOptions {
  /** Most timers waiting at once. */
  capacity?: number;
  /** Milliseconds on a monotonic scale (performance.now by default; specs pass their own). */
  now?: () => number;
}

export class TicketClock implements Clock {
  private readonly heap: Entry[] = [];
  private seq = 0;
  private timer: NodeJS.Timeout | null = null;
  /** The due time the Node timer is armed for (Infinity when none is). */
  private armedFor = Infinity;
  /** Whether the armed Node timer holds the process alive (only while a timer waits). */
  private held = false;
  readonly capacity: number;
  private readonly now: () => number;

  constructor(options: TicketClockOptions = {}) {
    this.capacity = options.capacity ?? 65_536;
    if (!Number.isSafeInteger(this.capacity) || this.capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${this.capacity}`);
    this.now = options.now ?? (() => performance.now());
  }

  /** Timers waiting to fire. */
  get size(): number {
    return this.heap.length;
  }

  setTimeout(fn: (...args: unknown[]) => void, timeout: number): Entry {
    if (this.heap.length >= this.capacity) throw new RangeError(`ticket clock full: ${this.heap.length} timers waiting (capacity ${this.capacity})`);
    const entry: Entry = { due: this.now() + Math.max(0, timeout), seq: this.seq++, fn: fn as () => void, at: this.heap.length };
    this.heap.push(entry);
    this.up(entry.at);
    if (entry.due < this.armedFor) this.arm(entry.due);
    else if (!this.held) {
      // Armed already (for an earlier due time, left from a heap that emptied): it holds the loop again.
      this.timer!.ref();
      this.held = true;
    }
    return entry;
  }

  clearTimeout(id: unknown): void {
    const entry = id as Entry | undefined;
    if (!entry || entry.at < 0) return;
    this.remove(entry);
    // The Node timer stays armed for a head that went: it wakes, finds nothing due, re-arms.
    // Emptied, it stays armed but no longer holds the process (a ticket's lease set and cleared
    // per lookup costs no Node timer then: the next one finds the timer armed and refs it).
    if (this.heap.length === 0 && this.held) {
      this.timer!.unref();
      this.held = false;
    }
  }

  /** Fires every timer that is due, then re-arms for the next. */
  private fire = (): void => {
    this.timer = null;
    this.armedFor = Infinity;
    this.held = false;
    const now = this.now();
    try {
      // Bounded by the timers present now: one that a callback sets fires on a later wake.
      for (let n = this.heap.length; n > 0 && this.heap.length > 0 && this.heap[0]!.due <= now; n--) {
        const head = this.heap[0]!;
        this.remove(head);
        head.fn();
      }
    } finally {
      // A callback that threw still leaves the rest armed.
      if (this.heap.length > 0 && this.heap[0]!.due < this.armedFor) this.arm(this.heap[0]!.due);
    }
  };

  private arm(due: number): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.armedFor = due;
    this.timer = setTimeout(this.fire, Math.max(0, Math.ceil(due - this.now())));
    this.held = true;
  }

  private remove(entry: Entry): void {
    const i = entry.at;
    const last = this.heap.pop()!;
    entry.at = -1;
    if (last === entry) return;
    this.heap[i] = last;
    last.at = i;
    this.up(i);
    this.down(last.at);
  }

  private before(a: Entry, b: Entry): boolean {
    return a.due < b.due || (a.due === b.due && a.seq < b.seq);
  }

  private up(i: number): void {
    const h = this.heap;
    const e = h[i]!;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.before(e, h[p]!)) break;
      h[i] = h[p]!;
      h[i]!.at = i;
      i = p;
    }
    h[i] = e;
    e.at = i;
  }

  private down(i: number): void {
    const h = this.heap;
    const e = h[i]!;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= h.length) break;
      const r = l + 1;
      const c = r < h.length && this.before(h[r]!, h[l]!) ? r : l;
      if (!this.before(h[c]!, e)) break;
      h[i] = h[c]!;
      h[i]!.at = i;
      i = c;
    }
    h[i] = e;
    e.at = i;
  }
}
