import { signerOf } from '../ledger/trust.js';
import type { EvidenceProfile, EvidenceRecord, EvidenceRecordOf } from '../../model/index.js';
import type { Registry } from '../../registry/index.js';
import { type LedgerPosition, LEDGER_START } from '../ledger/read.js';
import { type CellResult, type EventOf, type HashStanding, type IndependentEvidence, type LifecycleEvent, type RequirementContext, type Cursor, type TransitionTable, applyResultRun, cellKey, cursorUpdate, lineOf, recheckRunStates, resultRunStates, slotKey, tableAdvance, tableStart } from '../machines/index.js';
import { type World, lifecycleTables, worldOf } from './world.js';

/** One state change of a contract. */
export interface StateChange {
  seq: number;
  at: string;
  from: string;
  to: string;
}

/** A contract's folded lifecycle. */
export interface ContractFold {
  value: string;
  context: object;
  /** When it entered its state (null: since the start). */
  since: string | null;
  /** Its state changes (empty in a fold made without `trace`, as `loadFold` makes them). */
  history: StateChange[];
  /** Seqs of the records that changed its context or state (empty likewise). */
  evidence: number[];
}

export interface Pin {
  version: string;
  commit?: string;
  line: string;
  /** The `pin.changed` record that set it (undefined: the engine contract's pin). */
  seq?: number;
  at?: string;
}

/** A record a lifecycle refused: it is kept in the ledger and changes nothing. */
export interface Refusal {
  seq: number;
  subject: string;
  type: string;
  state: string;
}

/** Everything the fold knows after a ledger prefix. Plain data: it is what the snapshot cache stores. */
export interface FoldState {
  position: LedgerPosition;
  pins: Record<string, Pin>;
  /**
   * Who changed what is qualified (pins, adapter consumption, removals): not independent. A
   * signed record's author is its key (`key SHA256:...`), an unsigned one's its actor name.
   */
  authors: string[];
  /** Engine name → last recheck timestamp. */
  engineRechecks: Record<string, string>;
  contracts: Record<string, ContractFold>;
  refusals: Refusal[];
}

/** Types whose actor becomes an author. */
const AUTHORING = new Set(['pin.changed', 'adapter.consumed-replacement', 'hook.removed', 'optimization.dropped', 'hook.reinstated', 'support.expanded']);

export function initialFold(registry: Registry): FoldState {
  const world = worldOf(registry);
  const tables = lifecycleTables();
  const contracts: Record<string, ContractFold> = {};
  for (const t of world.tracked.values()) {
    const snap = tableStart(tables[t.lifecycle], t.initial);
    contracts[t.id] = { value: snap.value, context: snap.context, since: null, history: [], evidence: [] };
  }
  const pins: Record<string, Pin> = {};
  for (const [name, p] of Object.entries(world.registryPins)) pins[name] = { ...p };
  return { position: LEDGER_START, pins, authors: [], engineRechecks: {}, contracts, refusals: [] };
}

export interface FoldOptions {
  /** Fold only records at or before this instant (ISO timestamp). */
  until?: string;
  /**
   * Keep each contract's history and evidence lists (default). `explain` shows them; the board
   * needs only states and `since`, so `status` folds without them (less to allocate and keep).
   */
  trace?: boolean;
  /** Records per batch (default `BATCH`): specs fold with small batches to cross batch ends often. */
  batch?: number;
}

/**
 * Records per batch: each contract folds its events of a batch in one loop, so only its context
 * at a batch's end outlives the batch (intermediate contexts die young), and it copies its
 * context once per batch. A batch holds its events (with the strings they keep of their records)
 * and three 4-byte numbers per delivery: some 50 MB at this size (an estimate), bounded whatever
 * the ledger's length. Measured on the ledger bench (100,000
 * records, 2-core dev VM under load, CPU seconds of the cold load and board, two runs each) once
 * deliveries were flat typed arrays: 4,096 5.4 s, 32,768 3.7 s, 65,536 3.5-3.8 s, 131,072
 * 3.2-3.4 s, 200,000 3.3-3.4 s.
 */
const BATCH = 131_072;

/**
 * Folds records into a state, in ledger order, each through the transition tables of the
 * contracts listening to it. Records are not kept past their batch: a reader can stream a ledger
 * of any size through `push`, and only the contracts' contexts stay alive.
 *
 * Within a batch, two passes. First, in ledger order, the global facts (pins, authors) turn each
 * record into machine events, queued per listening contract. Then each contract folds its own
 * queue in one tight loop: a contract's steps never read another's state, so the result is the
 * same as delivering record by record, while its context stays hot and its garbage dies young.
 * Mutates `state`; `finish` folds the last batch and writes back what is kept in working form.
 *
 * @example const folder = new LedgerFolder(registry, initialFold(registry)); for (const r of records) folder.push(r); folder.finish();
 */
export class LedgerFolder {
  private readonly world: World;
  private readonly authors: Set<string>;
  private readonly until: number | undefined;
  /** Per tracked contract (the world's order): its fold and its table. */
  private readonly folds: (ContractFold | undefined)[];
  private readonly tables: TransitionTable<object>[];
  /**
   * The batch's deliveries in ledger order, as two parallel typed arrays: the contract slot and
   * the index of the event it is given (flat numbers, no array per contract). `flush` sorts them
   * by contract, keeping ledger order within each, with a counting sort.
   */
  private deliverySlots: Int32Array;
  private deliveryEvents: Int32Array;
  private deliveries = 0;
  /** Per contract slot: its deliveries in this batch (then, in `flush`, where its run starts). */
  private readonly counts: Int32Array;
  /** 1 for each contract whose state or context moved in this fold. */
  private readonly changed: Uint8Array;
  /** Slots given an event in this batch, in the order they were first given one. */
  private readonly touched: Int32Array;
  private touchedCount = 0;
  /**
   * The batch's events (one per record and kind, shared by its listeners), with the time and type
   * of the record each came from: the records themselves are not kept, so they die young.
   */
  private events: LifecycleEvent[] = [];
  private ats: string[] = [];
  private types: string[] = [];
  private lastEvent: LifecycleEvent | undefined;
  private pending = 0;
  private readonly refusalsBefore: number;
  private readonly trace: boolean;
  private readonly batch: number;
  private done = false;
  /** The last record taken and how many were: the state's position is written from them at the end. */
  private last: EvidenceRecord | undefined;
  private lines = 0;

  constructor(registry: Registry, readonly state: FoldState, options: FoldOptions = {}) {
    this.world = worldOf(registry);
    const tables = lifecycleTables();
    this.authors = new Set(state.authors);
    this.until = options.until !== undefined ? Date.parse(options.until) : undefined;
    this.folds = this.world.order.map((t) => state.contracts[t.id]);
    this.tables = this.world.order.map((t) => tables[t.lifecycle]);
    const n = this.world.order.length;
    this.deliverySlots = new Int32Array(1024);
    this.deliveryEvents = new Int32Array(1024);
    this.counts = new Int32Array(n);
    this.touched = new Int32Array(n);
    this.changed = new Uint8Array(n);
    this.refusalsBefore = state.refusals.length;
    this.trace = options.trace ?? true;
    this.batch = options.batch ?? BATCH;
  }

  /** Takes one record; false (and nothing taken) once records are past `until`, which ends the fold. */
  push(record: EvidenceRecord): boolean {
    if (this.done) return false;
    if (this.until !== undefined && Date.parse(record.at) > this.until) {
      this.done = true;
      return false;
    }
    recordEvents(this.world, this.state, this.authors, record, this.enqueue);
    this.last = record;
    this.lines++;
    if (++this.pending >= this.batch) this.flush();
    return true;
  }

  private readonly enqueue = (slot: number, event: LifecycleEvent, record: EvidenceRecord): void => {
    if (event !== this.lastEvent) {
      this.events.push(event);
      this.ats.push(record.at);
      this.types.push(record.type);
      this.lastEvent = event;
    }
    const count = this.counts[slot]!;
    this.counts[slot] = count + 1;
    if (count === 0) this.touched[this.touchedCount++] = slot;
    const n = this.deliveries++;
    if (n === this.deliverySlots.length) {
      const slots = new Int32Array(n * 2);
      slots.set(this.deliverySlots);
      this.deliverySlots = slots;
      const indexes = new Int32Array(n * 2);
      indexes.set(this.deliveryEvents);
      this.deliveryEvents = indexes;
    }
    this.deliverySlots[n] = slot;
    this.deliveryEvents[n] = this.events.length - 1;
  };

  /** The second pass over the batch: each touched contract folds its queue (its deliveries, in ledger order). */
  private flush(): void {
    const { events, ats, types, state, trace, counts, touched, touchedCount, deliveries, deliverySlots, deliveryEvents } = this;
    // Counting sort by contract, stable: each contract's run of event indexes, contracts in first-delivery order.
    const queue = new Int32Array(deliveries);
    let start = 0;
    for (let t = 0; t < touchedCount; t++) {
      const slot = touched[t]!;
      const n = counts[slot]!;
      counts[slot] = start;
      start += n;
    }
    for (let d = 0; d < deliveries; d++) queue[counts[deliverySlots[d]!]!++] = deliveryEvents[d]!;
    // `counts[slot]` is now where the next contract's run starts: the runs are read in the same order.
    let from = 0;
    for (let t = 0; t < touchedCount; t++) {
      const slot = touched[t]!;
      const to = counts[slot]!;
      counts[slot] = 0;
      const fold = this.folds[slot];
      if (fold) {
        const table = this.tables[slot]!;
        const runStates = resultRunStates(table);
        // One cursor per contract and batch: its context is copied once, at its first update.
        const cursor: Cursor<object> = { value: fold.value, context: fold.context, owned: false, changed: false };
        for (let q = from; q < to; q++) {
          const index = queue[q]!;
          // A run of gate results folded at once while none moves the contract (`machines/result-run.ts`);
          // the result that stops it (it would move the contract) is stepped through the table below.
          if (!trace && events[index]!.type === 'gate.result' && runStates.has(cursor.value)) {
            // Rechecks join the run where the table says they only note the time (`recheckRunStates`).
            const rechecks = recheckRunStates(table).has(cursor.value);
            let end = q + 1;
            for (; end < to; end++) {
              const type = events[queue[end]!]!.type;
              if (type !== 'gate.result' && !(rechecks && type === 'recheck')) break;
            }
            const run = applyResultRun(cursor.context as RequirementContext, events, queue, q, end);
            if (cursorUpdate(cursor, run.update)) this.changed[slot] = 1;
            if (run.end > q) {
              q = run.end - 1;
              continue;
            }
          }
          const before = cursor.value;
          const refusedBefore = (cursor.context as Partial<RequirementContext>).refused;
          cursor.changed = false;
          if (!tableAdvance(table, cursor, events[index]!)) continue;
          const moved = cursor.value !== before;
          if (!moved && !cursor.changed) continue;
          const seq = events[index]!.seq;
          if (moved) {
            if (trace) fold.history.push({ seq, at: ats[index]!, from: before, to: cursor.value });
            fold.since = ats[index]!;
          }
          this.changed[slot] = 1;
          if (trace && fold.evidence[fold.evidence.length - 1] !== seq) fold.evidence.push(seq);
          const refusedAfter = (cursor.context as Partial<RequirementContext>).refused;
          if (refusedAfter && refusedAfter !== refusedBefore) state.refusals.push({ seq, subject: this.world.order[slot]!.id, type: types[index]!, state: before });
        }
        fold.value = cursor.value;
        fold.context = cursor.context;
      }
      from = to;
    }
    this.touchedCount = 0;
    this.deliveries = 0;
    this.events = [];
    this.ats = [];
    this.types = [];
    this.lastEvent = undefined;
    this.pending = 0;
  }

  /**
   * The contracts whose fold moved since this folder started, and the contracts that read them
   * (their listeners: a hook reads its upstream conditions): whatever was derived from their
   * folds before is out of date.
   */
  moved(): Set<string> {
    const out = new Set<string>();
    const { order, listeners } = this.world;
    for (let slot = 0; slot < this.changed.length; slot++) {
      if (!this.changed[slot]) continue;
      const id = order[slot]!.id;
      out.add(id);
      for (const reader of listeners.get(id) ?? []) out.add(reader);
    }
    return out;
  }

  /** Ends the fold: the last batch folded, the state complete and plain data again. */
  finish(): FoldState {
    this.flush();
    this.done = true;
    const { state, last } = this;
    if (last) state.position = { seq: last.seq, hash: last.hash, at: last.at, offset: state.position.offset, line: state.position.line + this.lines };
    this.last = undefined;
    this.lines = 0;
    if (state.refusals.length > this.refusalsBefore) state.refusals.sort((a, b) => a.seq - b.seq || a.subject.localeCompare(b.subject));
    state.authors = [...this.authors].sort();
    return state;
  }
}

/** Folds records into the state, in order (see `LedgerFolder`). Mutates and returns `state`. */
export function foldRecords(registry: Registry, state: FoldState, records: readonly EvidenceRecord[], options: FoldOptions = {}): FoldState {
  const folder = new LedgerFolder(registry, state, options);
  for (const record of records) if (!folder.push(record)) break;
  return folder.finish();
}

/** Hands one machine event to the contract at `slot` of the world's order. */
export type Deliver = (slot: number, event: LifecycleEvent, record: EvidenceRecord) => void;

/**
 * Who a record speaks for when independence is decided: the key that signed it, else (an unsigned
 * record: the embedded history, or a registry without trusted signers) the actor name it claims.
 */
export function authorOf(record: EvidenceRecord): string {
  const key = signerOf(record);
  return key !== undefined ? `key ${key}` : record.actor;
}

/**
 * What one record means to the lifecycles: the machine events it gives each listening contract,
 * with the facts of that moment (pins, who is an author, both updated here). The fold batches the
 * deliveries; a reference fold (spec) steps xstate on each as it comes.
 */
export function recordEvents(world: World, state: FoldState, authors: Set<string>, record: EvidenceRecord, deliver: Deliver): void {
  const author = authorOf(record);
  const independent = !authors.has(author);
  if (AUTHORING.has(record.type)) authors.add(author);
  const subject = world.subjects.get(record.subject);
  const listeners = subject?.listeners ?? NO_LISTENERS;
  const own = listeners[0];
  const profile = profileFacts(state, record.profile);
  const seq = record.seq;
  switch (record.type) {
    case 'pin.changed': {
      const engine = subject?.engine;
      if (engine === undefined) return;
      const current = state.pins[engine];
      // Recording the pin already in force is not a change: the passes bound to it stand.
      if (current && current.version === record.data.version && (current.commit ?? '') === (record.data.commit ?? '') && current.seq !== undefined) return;
      const pin: Pin = { version: record.data.version, line: lineOf(record.data.version), seq, at: record.at, ...(record.data.commit ? { commit: record.data.commit } : {}) };
      state.pins[engine] = pin;
      toAll(world.pinSlots, record, deliver, { type: 'pin', seq, engine, version: pin.version, line: pin.line });
      return;
    }
    case 'recheck': {
      const event: LifecycleEvent = { type: 'recheck', seq, at: record.at };
      const engine = subject?.engine;
      if (engine !== undefined) {
        state.engineRechecks[engine] = record.at;
        toAll(world.engineSlots.get(engine) ?? NO_LISTENERS, record, deliver, event);
        return;
      }
      toAll(listeners, record, deliver, event);
      return;
    }
    case 'upstream.state':
      if (own !== undefined) deliver(own, { type: 'upstream.state', seq, upstream: record.subject, state: record.data.state }, record);
      toAll(listeners, record, deliver, { type: 'recheck', seq, at: record.at });
      return;
    case 'upstream.released':
      toAll(listeners, record, deliver, { type: 'upstream.released', seq, upstream: record.subject, line: record.data.line, version: record.data.version });
      return;
    case 'adapter.consumed-replacement':
      toAll(listeners, record, deliver, { type: 'consumed', seq, subject: record.subject, condition: record.data.condition, engines: profile.engines, onPins: profile.onPins, ...(record.profile?.adapter ? { adapter: record.profile.adapter } : {}), ...(record.data.release ? { release: record.data.release } : {}) });
      return;
    case 'verify.target':
    case 'verify.assertion':
      if (own !== undefined) deliver(own, { type: 'verify', seq, at: record.at, result: record.data.result }, record);
      return;
    case 'gate.result': {
      const gate = subject?.gate;
      if (!gate) return;
      const cell = cellKey(gate, record.data.cell);
      const adapter = record.profile?.adapter;
      const pass = record.data.result === 'pass';
      const hashes = hashStanding(record as EvidenceRecordOf<'gate.result'>);
      // One literal per shape (with or without an adapter): no spreads, no properties added later.
      const engines = profile.engines;
      const standIn = record.data.where?.engine === 'stand-in';
      const actor = record.actor;
      const key = slotKey(gate.id, cell);
      let event: EventOf<'gate.result'>;
      if (adapter) {
        const result: CellResult = { pass, hashes, engines, standIn, independent, seq, actor, adapter };
        const evidence: IndependentEvidence = { engines, seq, adapter };
        event = { type: 'gate.result', seq, gate: gate.id, cell, key, result, evidence, pass, hashes, engines, onPins: profile.onPins, independent, actor, adapter };
      } else {
        const result: CellResult = { pass, hashes, engines, standIn, independent, seq, actor };
        const evidence: IndependentEvidence = { engines, seq };
        event = { type: 'gate.result', seq, gate: gate.id, cell, key, result, evidence, pass, hashes, engines, onPins: profile.onPins, independent, actor };
      }
      toAll(listeners, record, deliver, event);
      return;
    }
    case 'gate.acceptance': {
      const adapter = record.profile?.adapter;
      const engines = profile.engines;
      const accepted = record.data.verdict === 'accepted';
      const event: EventOf<'gate.acceptance'> = adapter
        ? { type: 'gate.acceptance', seq, gate: record.subject, accepted, engines, onPins: profile.onPins, independent, evidence: { engines, seq, adapter }, adapter }
        : { type: 'gate.acceptance', seq, gate: record.subject, accepted, engines, onPins: profile.onPins, independent, evidence: { engines, seq } };
      toAll(listeners, record, deliver, event);
      return;
    }
    case 'hook.removed':
      if (own !== undefined) deliver(own, { type: 'removed', seq, onPins: profile.onPins }, record);
      return;
    case 'optimization.dropped':
      if (own !== undefined) deliver(own, { type: 'dropped', seq, onPins: profile.onPins }, record);
      return;
    case 'hook.reinstated':
      if (own !== undefined) deliver(own, { type: 'reinstated', seq }, record);
      return;
    case 'support.expanded':
      if (own !== undefined) deliver(own, { type: 'expanded', seq, onPins: profile.onPins }, record);
      return;
    default:
      return;
  }
}

const NO_LISTENERS: number[] = [];

function toAll(listeners: readonly number[], record: EvidenceRecord, deliver: Deliver, event: LifecycleEvent): void {
  for (const slot of listeners) deliver(slot, event, record);
}

function hashStanding(record: EvidenceRecordOf<'gate.result'>): HashStanding {
  const h = record.data.hashes;
  if (h) return h.before === h.after ? 'equal' : 'differ';
  return record.data.hashesKept ? 'kept' : 'missing';
}

/** Which engines a profile binds, and whether each equals its current pin. */
export function profileFacts(state: FoldState, profile: EvidenceProfile | undefined): { engines: string[]; onPins: boolean; mismatch?: { engine: string; found: string; pinned: string } } {
  if (!profile) return NO_ENGINES;
  const engines = engineList(profile.engines);
  for (const name of engines) {
    const given = profile.engines[name]!;
    const pin = state.pins[name];
    if (!pin || pin.version !== given.version || (pin.commit !== undefined && given.commit !== undefined && pin.commit !== given.commit)) {
      const pinned = pin ? `${pin.version}${pin.commit ? ` (${pin.commit.slice(0, 8)})` : ''}` : 'none';
      const found = `${given.version}${given.commit ? ` (${given.commit.slice(0, 8)})` : ''}`;
      return { engines, onPins: false, mismatch: { engine: name, found, pinned } };
    }
  }
  return { engines, onPins: true };
}

const NO_ENGINES = { engines: [] as string[], onPins: true };

const engineLists = new Map<string, string[]>();

/**
 * A profile's engine names, sorted, as one shared array per set of names: every result bound to
 * the same engines holds the same array (never mutated), not one copy per record.
 */
function engineList(engines: Record<string, unknown>): string[] {
  let key = '';
  let n = 0;
  for (const name in engines) {
    key = n === 0 ? name : `${key}\u0000${name}`;
    n++;
  }
  let list = engineLists.get(key);
  if (list === undefined) {
    list = n === 0 ? [] : n === 1 ? [key] : key.split('\u0000').sort();
    // Two orders of the same names share the sorted list.
    const sorted = list.join('\u0000');
    list = engineLists.get(sorted) ?? list;
    engineLists.set(sorted, list);
    engineLists.set(key, list);
  }
  return list;
}

/** Folds a whole ledger from the start. */
export function foldLedger(registry: Registry, records: readonly EvidenceRecord[], options: FoldOptions = {}): FoldState {
  return foldRecords(registry, initialFold(registry), records, options);
}
