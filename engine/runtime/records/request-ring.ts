/**
 * The lookup records `orbitkv requests` prints: a fixed-capacity ring, oldest overwritten
 * first, so the history is bounded by a flag and never by traffic.
 *
 * Held in columns (typed arrays, and arrays for the two strings), not an object per lookup: a
 * record lives for `capacity` lookups, far longer than two young-generation collections at
 * any busy rate, so an object per record was promoted to the old generation on every lookup
 * (about 250 bytes each, half of what a lookup promoted: spec/bench/results/runtime-gc-dev-vm.txt)
 * and the old generation filled towards a mark-compact every second.
 *
 * The request's id is kept as UTF-8 bytes in a fixed slot of REQUEST_TEXT_BYTES per record (vLLM's
 * and SGLang's request ids fit), not as the string the frame decoded: a string in a ring that
 * outlives the young generation was promoted on every lookup. In the service alone on the dev VM
 * this took what survives a scavenge from 29 to 20 KB; neither there nor on an H100 host did the
 * scavenge pause or the lookup p99 move beyond the noise (spec/bench/results/
 * runtime-lookup-ab-h100-host.txt, host D). An id longer than its slot is kept as the string.
 * A record is written through the handle `open` returns (its sequence number), and a handle whose
 * slot has since been overwritten writes nothing.
 */

/** Why one block of a lookup did not match. */
export const MISS_REASONS = ['absent', 'evicted', 'checksum', 'lease-expired', 'timed-out', 'cancelled', 'profile-rejected', 'beyond-boundary', 'pending'] as const;
export type MissReason = (typeof MISS_REASONS)[number];

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
  firstMiss: FirstMiss | null;
  latencyUs: number | null;
}

export interface FirstMiss {
  block: number;
  reason: MissReason;
  since?: string;
}

/** What a record starts with (the rest is written as its ticket goes). */
export interface RecordOpening {
  ticket: number;
  request: string;
  rank: number;
  session: number;
  atMs: number;
  namespace: string;
  blocks: number;
  state: string;
}

/**
 * Most records a ring holds: each costs about 190 bytes (twelve 8-byte columns, three 1-byte ones,
 * three array slots and its 64-byte request id), so a million is about 190 MB, reserved at start.
 */
export const MAX_RECORDS = 1_000_000;

/** Bytes of UTF-8 each record keeps its request id in; a longer id is kept as a string. */
export const REQUEST_TEXT_BYTES = 64;
/** The length column's mark for an id kept as a string. */
const LONG = 0xff;

/** Most distinct state names the ring keeps codes for (the lifecycles have a dozen). */
const MAX_STATES = 255;
const REASON_CODE = new Map<string, number>(MISS_REASONS.map((r, i) => [r, i]));

/** Whether `s` has no lone surrogate (String.prototype.isWellFormed, in node 20 but not in lib ES2023). */
const isWellFormed = (s: string): boolean => (s as string & { isWellFormed(): boolean }).isWellFormed();

export class RequestRing {
  /** Each slot's record as a sequence number (its handle); -1 while the slot is unused. */
  private readonly seqs: Float64Array;
  private readonly tickets: Float64Array;
  /** Each record's request id as UTF-8, REQUEST_TEXT_BYTES a record. */
  private readonly requestText: Buffer;
  /** Its length in bytes, or LONG for an id kept in `longRequests`. */
  private readonly requestLengths: Uint8Array;
  private readonly longRequests: (string | undefined)[];
  private longCount = 0;
  private readonly ranks: Float64Array;
  private readonly sessions: Float64Array;
  private readonly atMs: Float64Array;
  private readonly namespaces: (string | undefined)[];
  private readonly blocks: Float64Array;
  private readonly matched: Float64Array;
  /** NaN: no boundary. */
  private readonly boundaries: Float64Array;
  private readonly states: Uint8Array;
  private readonly dram: Float64Array;
  private readonly ssd: Float64Array;
  /** NaN: no first miss. */
  private readonly missBlocks: Float64Array;
  private readonly missReasons: Uint8Array;
  private readonly missSince: (string | undefined)[];
  /** NaN: not answered. */
  private readonly latencies: Float64Array;
  private readonly stateNames: string[] = [];
  private readonly stateCodes = new Map<string, number>();
  private nextSeq = 0;

  constructor(readonly capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 1 || capacity > MAX_RECORDS) throw new RangeError(`capacity must be an integer from 1 to ${MAX_RECORDS}, got ${capacity}`);
    const f64 = () => new Float64Array(capacity);
    this.seqs = f64().fill(-1);
    this.tickets = f64();
    this.ranks = f64();
    this.sessions = f64();
    this.atMs = f64();
    this.blocks = f64();
    this.matched = f64();
    this.boundaries = f64();
    this.dram = f64();
    this.ssd = f64();
    this.missBlocks = f64();
    this.latencies = f64();
    this.states = new Uint8Array(capacity);
    this.missReasons = new Uint8Array(capacity);
    this.requestText = Buffer.alloc(capacity * REQUEST_TEXT_BYTES);
    this.requestLengths = new Uint8Array(capacity);
    this.longRequests = new Array<string | undefined>(capacity).fill(undefined);
    this.namespaces = new Array<string | undefined>(capacity).fill(undefined);
    this.missSince = new Array<string | undefined>(capacity).fill(undefined);
  }

  /** Starts a record in the oldest slot; returns its handle. */
  open(r: RecordOpening): number {
    const seq = this.nextSeq++;
    const i = seq % this.capacity;
    this.seqs[i] = seq;
    this.tickets[i] = r.ticket;
    this.writeRequest(i, r.request);
    this.ranks[i] = r.rank;
    this.sessions[i] = r.session;
    this.atMs[i] = r.atMs;
    this.namespaces[i] = r.namespace;
    this.blocks[i] = r.blocks;
    this.matched[i] = 0;
    this.boundaries[i] = NaN;
    this.states[i] = this.code(r.state);
    this.dram[i] = 0;
    this.ssd[i] = 0;
    this.missBlocks[i] = NaN;
    this.missReasons[i] = 0;
    this.missSince[i] = undefined;
    this.latencies[i] = NaN;
    return seq;
  }

  /** A whole record at once (a refused handshake's). */
  push(r: RecordOpening & { firstMiss: FirstMiss | null }): number {
    const seq = this.open(r);
    if (r.firstMiss) this.setFirstMiss(seq, r.firstMiss);
    return seq;
  }

  setState(seq: number, state: string): void {
    const i = this.slot(seq);
    if (i >= 0) this.states[i] = this.code(state);
  }

  /** What the chain matched when the ticket took its match. */
  setMatch(seq: number, matched: number, tiers: { dram: number; ssd: number }, firstMiss: FirstMiss | null): void {
    const i = this.slot(seq);
    if (i < 0) return;
    this.matched[i] = matched;
    this.dram[i] = tiers.dram;
    this.ssd[i] = tiers.ssd;
    this.writeMiss(i, firstMiss);
  }

  /** The answer: the agreed boundary (null: none) and the latency in µs. */
  setAnswer(seq: number, boundary: number | null, latencyUs: number): void {
    const i = this.slot(seq);
    if (i < 0) return;
    this.boundaries[i] = boundary ?? NaN;
    this.latencies[i] = latencyUs;
  }

  setFirstMiss(seq: number, firstMiss: FirstMiss): void {
    const i = this.slot(seq);
    if (i >= 0) this.writeMiss(i, firstMiss);
  }

  /** Newest first, optionally only one engine request's, at most `limit`. */
  list(filter: { request?: string; limit?: number } = {}): LookupRecord[] {
    const out: LookupRecord[] = [];
    const limit = filter.limit ?? this.capacity;
    for (let seq = this.nextSeq - 1; seq >= 0 && seq >= this.nextSeq - this.capacity && out.length < limit; seq--) {
      const i = seq % this.capacity;
      if (filter.request === undefined || this.requestAt(i) === filter.request) out.push(this.printable(i));
    }
    return out;
  }

  get size(): number {
    return Math.min(this.nextSeq, this.capacity);
  }

  /** Request ids kept as strings (those longer than REQUEST_TEXT_BYTES of UTF-8) among the records held. */
  get longRequestCount(): number {
    return this.longCount;
  }

  private writeRequest(i: number, request: string): void {
    // byteLength and write copy the string's bytes without a JS allocation. A string with a lone
    // surrogate (a JSON LOOKUP may carry one) would come back as U+FFFD: it is kept as it is.
    let bytes = request.length <= REQUEST_TEXT_BYTES ? Buffer.byteLength(request) : REQUEST_TEXT_BYTES + 1;
    if (bytes !== request.length && bytes <= REQUEST_TEXT_BYTES && !isWellFormed(request)) bytes = REQUEST_TEXT_BYTES + 1;
    const wasLong = this.requestLengths[i] === LONG;
    if (bytes <= REQUEST_TEXT_BYTES) {
      this.requestText.write(request, i * REQUEST_TEXT_BYTES, bytes);
      this.requestLengths[i] = bytes;
      if (wasLong) {
        this.longRequests[i] = undefined;
        this.longCount--;
      }
    } else {
      this.requestLengths[i] = LONG;
      this.longRequests[i] = request;
      if (!wasLong) this.longCount++;
    }
  }

  private requestAt(i: number): string {
    const n = this.requestLengths[i]!;
    if (n === LONG) return this.longRequests[i]!;
    const at = i * REQUEST_TEXT_BYTES;
    return this.requestText.toString('utf8', at, at + n);
  }

  /** The slot of a handle, or -1 once it was overwritten. */
  private slot(seq: number): number {
    const i = seq % this.capacity;
    return this.seqs[i] === seq ? i : -1;
  }

  private writeMiss(i: number, m: FirstMiss | null): void {
    if (m === null) {
      this.missBlocks[i] = NaN;
      this.missSince[i] = undefined;
      return;
    }
    this.missBlocks[i] = m.block;
    this.missReasons[i] = REASON_CODE.get(m.reason)!;
    this.missSince[i] = m.since;
  }

  private code(state: string): number {
    let c = this.stateCodes.get(state);
    if (c === undefined) {
      if (this.stateNames.length >= MAX_STATES) throw new RangeError(`more than ${MAX_STATES} distinct lookup states recorded (got '${state}')`);
      c = this.stateNames.push(state) - 1;
      this.stateCodes.set(state, c);
    }
    return c;
  }

  /** The record as `orbitkv requests` and the REQUESTS reply show it. */
  private printable(i: number): LookupRecord {
    const boundary = this.boundaries[i]!;
    const latency = this.latencies[i]!;
    const missBlock = this.missBlocks[i]!;
    const since = this.missSince[i];
    return {
      ticket: this.tickets[i]!,
      request: this.requestAt(i),
      rank: this.ranks[i]!,
      session: this.sessions[i]!,
      namespace: this.namespaces[i]!,
      blocks: this.blocks[i]!,
      matched: this.matched[i]!,
      boundary: Number.isNaN(boundary) ? null : boundary,
      state: this.stateNames[this.states[i]!]!,
      tiers: { dram: this.dram[i]!, ssd: this.ssd[i]! },
      firstMiss: Number.isNaN(missBlock) ? null : { block: missBlock, reason: MISS_REASONS[this.missReasons[i]!]!, ...(since !== undefined ? { since } : {}) },
      latencyUs: Number.isNaN(latency) ? null : latency,
      at: new Date(this.atMs[i]!).toISOString(),
    };
  }
}
