/**
 * The lookup records `orbitkv requests` prints: a fixed-capacity ring, oldest overwritten
 * first, so the history is bounded by a flag and never by traffic.
 */

/** Why one block of a lookup did not match. */
export type MissReason = 'absent' | 'evicted' | 'checksum' | 'lease-expired' | 'timed-out' | 'cancelled' | 'profile-rejected' | 'beyond-boundary' | 'pending';

export interface LookupRecord {
  /** Ticket id (0: a refused handshake, whose `namespace` names the rejections). */
  ticket: number;
  request: string;
  rank: number;
  session: number;
  at: string;
  namespace: string;
  blocks: number;
  /** Blocks matched before the rank agreement. */
  matched: number;
  /** The agreed boundary (smallest over ranks), or null when the ticket never got one. */
  boundary: number | null;
  state: string;
  /** Matched blocks by tier. */
  tiers: { dram: number; ssd: number };
  /** The first unmatched block and why (the rest of the chain cannot match past it). */
  firstMiss: { block: number; reason: MissReason; since?: string } | null;
  latencyUs: number | null;
}

/**
 * A record as the ring holds it: its time as epoch milliseconds, formatted as `at` only when
 * the history is listed (a lookup at 10,000/s builds no date string).
 */
export interface HeldRecord extends Omit<LookupRecord, 'at'> {
  atMs: number;
}

export class RequestRing {
  private readonly slots: (HeldRecord | undefined)[];
  private next = 0;
  private count = 0;

  constructor(readonly capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
    this.slots = new Array<HeldRecord | undefined>(capacity);
  }

  push(record: HeldRecord): void {
    this.slots[this.next] = record;
    this.next = (this.next + 1) % this.capacity;
    this.count = Math.min(this.count + 1, this.capacity);
  }

  /** Newest first, optionally only one engine request's, at most `limit`. */
  list(filter: { request?: string; limit?: number } = {}): LookupRecord[] {
    const out: LookupRecord[] = [];
    const limit = filter.limit ?? this.capacity;
    for (let i = 1; i <= this.count && out.length < limit; i++) {
      const r = this.slots[(this.next - i + this.capacity) % this.capacity]!;
      if (filter.request === undefined || r.request === filter.request) out.push(printable(r));
    }
    return out;
  }

  get size(): number {
    return this.count;
  }
}

/** The record as `orbitkv requests` and the REQUESTS reply show it. */
function printable(r: HeldRecord): LookupRecord {
  const { atMs, ...rest } = r;
  return { ...rest, at: new Date(atMs).toISOString() };
}
