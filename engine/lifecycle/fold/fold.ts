import type { EvidenceProfile, EvidenceRecord, EvidenceRecordOf } from '../../model/index.js';
import type { Registry } from '../../registry/index.js';
import { type LedgerPosition, LEDGER_START } from '../ledger/read.js';
import { type CellResult, type HashStanding, type LifecycleEvent, type RequirementContext, type Snap, cellKey, lineOf, tableStart, tableStep } from '../machines/index.js';
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
  history: StateChange[];
  /** Seqs of the records that changed its context or state (empty in a fold loaded from the snapshot cache). */
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
  /** Actors who changed what is qualified (pins, adapter consumption, removals): not independent. */
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
}

/**
 * Folds records into the state, in order, through each contract's transition table. Mutates and
 * returns `state` (callers pass a fresh or a cloned one). Records after `until` are left out.
 */
export function foldRecords(registry: Registry, state: FoldState, records: readonly EvidenceRecord[], options: FoldOptions = {}): FoldState {
  const world = worldOf(registry);
  const tables = lifecycleTables();
  const authors = new Set(state.authors);
  const until = options.until !== undefined ? Date.parse(options.until) : undefined;
  // Two passes. First, in ledger order, the global facts (pins, authors) turn each record into
  // machine events, queued per listening contract. Then each contract folds its own queue in one
  // tight loop: a contract's steps never read another's state, so the result is the same as
  // delivering record by record, while its context stays hot and its garbage dies young.
  // Queues hold indexes (small integers the collector does not trace), one shared event per record.
  const events: LifecycleEvent[] = [];
  const sources: EvidenceRecord[] = [];
  const queues = new Map<string, number[]>();
  let lastEvent: LifecycleEvent | undefined;
  const enqueue: Deliver = (id, event, record) => {
    if (event !== lastEvent) {
      events.push(event);
      sources.push(record);
      lastEvent = event;
    }
    const queue = queues.get(id);
    if (queue) queue.push(events.length - 1);
    else queues.set(id, [events.length - 1]);
  };
  for (const record of records) {
    if (until !== undefined && Date.parse(record.at) > until) break;
    foldOne(world, state, authors, record, enqueue);
    state.position = { seq: record.seq, hash: record.hash, at: record.at, offset: state.position.offset, line: state.position.line + 1 };
  }
  const refusalsBefore = state.refusals.length;
  for (const [id, queue] of queues) {
    const fold = state.contracts[id];
    const tracked = world.tracked.get(id);
    if (!fold || !tracked) continue;
    const table = tables[tracked.lifecycle];
    let snap: Snap<object> = { value: fold.value, context: fold.context };
    for (const index of queue) {
      const record = sources[index]!;
      const after = tableStep(table, snap, events[index]!);
      if (after === snap) continue;
      if (after.value !== snap.value) {
        fold.history.push({ seq: record.seq, at: record.at, from: snap.value, to: after.value });
        fold.since = record.at;
      }
      if (after.context !== snap.context || after.value !== snap.value) {
        if (fold.evidence[fold.evidence.length - 1] !== record.seq) fold.evidence.push(record.seq);
        const refusedBefore = (snap.context as Partial<RequirementContext>).refused;
        const refusedAfter = (after.context as Partial<RequirementContext>).refused;
        if (refusedAfter && refusedAfter !== refusedBefore) state.refusals.push({ seq: record.seq, subject: id, type: record.type, state: snap.value });
      }
      snap = after;
    }
    fold.value = snap.value;
    fold.context = snap.context;
  }
  if (state.refusals.length > refusalsBefore) state.refusals.sort((a, b) => a.seq - b.seq || a.subject.localeCompare(b.subject));
  state.authors = [...authors].sort();
  return state;
}

type Deliver = (id: string, event: LifecycleEvent, record: EvidenceRecord) => void;

function foldOne(world: World, state: FoldState, authors: Set<string>, record: EvidenceRecord, deliver: Deliver): void {
  const independent = !authors.has(record.actor);
  if (AUTHORING.has(record.type)) authors.add(record.actor);
  const listeners = world.listeners.get(record.subject) ?? NO_LISTENERS;
  const profile = profileFacts(state, record.profile);
  const seq = record.seq;
  switch (record.type) {
    case 'pin.changed': {
      const engine = world.engineOfContract.get(record.subject);
      if (engine === undefined) return;
      const current = state.pins[engine];
      // Recording the pin already in force is not a change: the passes bound to it stand.
      if (current && current.version === record.data.version && (current.commit ?? '') === (record.data.commit ?? '') && current.seq !== undefined) return;
      const pin: Pin = { version: record.data.version, line: lineOf(record.data.version), seq, at: record.at, ...(record.data.commit ? { commit: record.data.commit } : {}) };
      state.pins[engine] = pin;
      const event: LifecycleEvent = { type: 'pin', seq, engine, version: pin.version, line: pin.line };
      for (const [id, t] of world.tracked) if (t.lifecycle !== 'upstream') deliver(id, event, record);
      return;
    }
    case 'recheck': {
      const event: LifecycleEvent = { type: 'recheck', seq, at: record.at };
      const engine = world.engineOfContract.get(record.subject);
      if (engine !== undefined) {
        state.engineRechecks[engine] = record.at;
        for (const id of world.byEngine.get(engine) ?? []) deliver(id, event, record);
        return;
      }
      toAll(listeners, record, deliver, event);
      return;
    }
    case 'upstream.state':
      deliver(record.subject, { type: 'upstream.state', seq, upstream: record.subject, state: record.data.state }, record);
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
      deliver(record.subject, { type: 'verify', seq, at: record.at, result: record.data.result }, record);
      return;
    case 'gate.result': {
      const gate = world.registry.get(record.subject);
      if (!gate || gate.kind !== 'gate') return;
      const cell = cellKey(gate, record.data.cell);
      const adapter = record.profile?.adapter;
      const pass = record.data.result === 'pass';
      const hashes = hashStanding(record as EvidenceRecordOf<'gate.result'>);
      const result: CellResult = { pass, hashes, engines: profile.engines, independent, seq, actor: record.actor, ...(adapter ? { adapter } : {}) };
      const evidence = { engines: profile.engines, seq, ...(adapter ? { adapter } : {}) };
      toAll(listeners, record, deliver, { type: 'gate.result', seq, gate: record.subject, cell, key: `${record.subject}|${cell}`, result, evidence, pass, hashes, engines: profile.engines, onPins: profile.onPins, independent, actor: record.actor, ...(adapter ? { adapter } : {}) });
      return;
    }
    case 'gate.acceptance': {
      const adapter = record.profile?.adapter;
      const evidence = { engines: profile.engines, seq, ...(adapter ? { adapter } : {}) };
      toAll(listeners, record, deliver, { type: 'gate.acceptance', seq, gate: record.subject, accepted: record.data.verdict === 'accepted', engines: profile.engines, onPins: profile.onPins, independent, evidence, ...(adapter ? { adapter } : {}) });
      return;
    }
    case 'hook.removed':
      deliver(record.subject, { type: 'removed', seq, onPins: profile.onPins }, record);
      return;
    case 'optimization.dropped':
      deliver(record.subject, { type: 'dropped', seq, onPins: profile.onPins }, record);
      return;
    case 'hook.reinstated':
      deliver(record.subject, { type: 'reinstated', seq }, record);
      return;
    case 'support.expanded':
      deliver(record.subject, { type: 'expanded', seq, onPins: profile.onPins }, record);
      return;
    default:
      return;
  }
}

const NO_LISTENERS: string[] = [];

function toAll(listeners: readonly string[], record: EvidenceRecord, deliver: Deliver, event: LifecycleEvent): void {
  for (const id of listeners) deliver(id, event, record);
}

function hashStanding(record: EvidenceRecordOf<'gate.result'>): HashStanding {
  const h = record.data.hashes;
  if (h) return h.before === h.after ? 'equal' : 'differ';
  return record.data.hashesKept ? 'kept' : 'missing';
}

/** Which engines a profile binds, and whether each equals its current pin. */
export function profileFacts(state: FoldState, profile: EvidenceProfile | undefined): { engines: string[]; onPins: boolean; mismatch?: { engine: string; found: string; pinned: string } } {
  if (!profile) return NO_ENGINES;
  const names = Object.keys(profile.engines);
  const engines = names.length > 1 ? names.sort() : names;
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

/** Folds a whole ledger from the start. */
export function foldLedger(registry: Registry, records: readonly EvidenceRecord[], options: FoldOptions = {}): FoldState {
  return foldRecords(registry, initialFold(registry), records, options);
}
