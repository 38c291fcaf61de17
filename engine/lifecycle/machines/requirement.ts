import { UNCHANGED } from './define.js';
import type { EvidenceRelease } from '../../model/index.js';
import { compareVersions } from './cells.js';
import { cellResultBlocker } from './cell-pass.js';
import type { EventOf, HashStanding, LifecycleEvent } from './events.js';
import type { CellSpec, ConditionSpec, RequirementSpec } from './requirements.js';

/**
 * The facts a hook or a restriction (gap, rejection) accumulates from its evidence, and the
 * pure guards and reducers both of their machines are built from. Reducers return the changed
 * fields only (xstate `assign` semantics); nothing here mutates.
 */

export interface LifecyclePin {
  version: string;
  line: string;
}

export interface CellResult {
  pass: boolean;
  adapter?: string;
  hashes: HashStanding;
  /** Engines the result's profile is bound to: a pin change of any of them voids it. */
  engines: string[];
  /** It ran on an engine stand-in (`data.where.engine`), which presents the pins without being the engine. */
  standIn: boolean;
  independent: boolean;
  seq: number;
  actor: string;
}

export interface Consumption {
  adapter?: string;
  release?: EvidenceRelease;
  engines: string[];
  seq: number;
}

export interface IndependentEvidence {
  adapter?: string;
  engines: string[];
  seq: number;
}

/** Arrays aligned with the spec's slots; `null` marks an empty slot (it survives JSON, unlike `undefined`). */
export interface RequirementContext {
  spec: RequirementSpec;
  /** The pin of the spec's engine (null: the engine is not pinned). */
  pin: LifecyclePin | null;
  /** Releases of each condition's tracked upstream, by condition slot. */
  released: (EvidenceRelease[] | null)[];
  /** Consumption of each condition on the current pins, by condition slot. */
  consumed: (Consumption | null)[];
  /** Latest result of each cell on the current pins, by cell slot. */
  results: (CellResult | null)[];
  /** Independent passes and acceptances on the current pins, by gate slot. */
  accepted: (IndependentEvidence[] | null)[];
  lastRecheck: string | null;
  verify: { result: string; at: string; seq: number } | null;
  /** Records the machine refused (a removal before it was authorized, …). */
  refused: { seq: number; type: string }[];
  /** How it left: by replacement, by dropping the optimization, or as declared in the contract. */
  via: 'replacement' | 'drop' | 'declared' | null;
}

export function requirementContext(spec: RequirementSpec, pin: LifecyclePin | undefined): RequirementContext {
  const empty = (n: number) => Array.from({ length: n }, () => null);
  // Every field present from the start, in one order: all contexts share one hidden class.
  return {
    spec, pin: pin ?? null,
    released: empty(spec.conditions.length), consumed: empty(spec.conditions.length), results: empty(spec.slots.cells.size), accepted: empty(spec.slots.gates.size),
    lastRecheck: null, verify: null, refused: [], via: spec.declaredRemoved ? 'declared' : null,
  };
}

// ---- guards -------------------------------------------------------------------------------

/** The condition's replacement is in a release on the pinned line, at or below the pinned version. */
export function releasedOnPinnedLine(ctx: RequirementContext, condition: ConditionSpec): boolean {
  const pin = ctx.pin;
  if (!pin) return false;
  // Loops, not closures: the fold asks this after every result a hook or restriction takes.
  if (condition.upstream) {
    const releases = ctx.released[condition.slot];
    if (!releases) return false;
    for (let i = 0; i < releases.length; i++) {
      const r = releases[i]!;
      if (r.line === pin.line && compareVersions(r.version, pin.version) <= 0) return true;
    }
    return false;
  }
  const release = ctx.consumed[condition.slot]?.release;
  return release ? release.line === pin.line && compareVersions(release.version, pin.version) <= 0 : false;
}

/**
 * The earliest release of the condition's replacement that comes after the pin, on the pinned
 * line or a later one: the pin has to move to it. Undefined when none does (or one is on the pin).
 */
export function releasedAfterPin(ctx: RequirementContext, condition: ConditionSpec): EvidenceRelease | undefined {
  const pin = ctx.pin;
  if (!pin || releasedOnPinnedLine(ctx, condition)) return undefined;
  const consumption = ctx.consumed[condition.slot];
  const releases = condition.upstream ? (ctx.released[condition.slot] ?? []) : consumption?.release ? [consumption.release] : [];
  let earliest: EvidenceRelease | undefined;
  for (const r of releases) {
    if (compareVersions(r.line, pin.line) < 0 || compareVersions(r.version, pin.version) <= 0) continue;
    if (!earliest || compareVersions(r.version, earliest.version) < 0) earliest = r;
  }
  return earliest;
}

/** Every upstream condition is released on the pinned line and consumed by the adapter on the current pins. */
export function replacementReady(ctx: RequirementContext): boolean {
  const conditions = ctx.spec.conditions;
  if (conditions.length === 0) return false;
  for (let i = 0; i < conditions.length; i++) {
    const c = conditions[i]!;
    if (ctx.consumed[c.slot] == null || !releasedOnPinnedLine(ctx, c)) return false;
  }
  return true;
}

/** The adapter of the latest consumption: the profile removal gates must pass on. */
export function consumingAdapter(ctx: RequirementContext): string | undefined {
  let latest: Consumption | null | undefined;
  const consumed = ctx.consumed;
  for (let i = 0; i < consumed.length; i++) {
    const c = consumed[i];
    if (c && (!latest || c.seq > latest.seq)) latest = c;
  }
  return latest?.adapter;
}

export function independentOk(ctx: RequirementContext, gateSlot: number, adapter: string | undefined): boolean {
  return independentIn(ctx.accepted, gateSlot, adapter);
}

function independentIn(accepted: RequirementContext['accepted'], gateSlot: number, adapter: string | undefined): boolean {
  const list = accepted[gateSlot];
  if (!list) return false;
  for (let i = 0; i < list.length; i++) if (adapter === undefined || list[i]!.adapter === adapter) return true;
  return false;
}

/** Why a cell does not count, or undefined when it passed on the profile. */
export function cellBlocker(ctx: RequirementContext, cell: CellSpec, adapter: string | undefined): string | undefined {
  return cellBlockerIn(ctx.results, ctx.accepted, cell, adapter);
}

/** `cellBlocker` over a context's result and acceptance lists (the one rule; a run of results asks it of lists it is filling). */
export function cellBlockerIn(results: RequirementContext['results'], accepted: RequirementContext['accepted'], cell: CellSpec, adapter: string | undefined): string | undefined {
  const r = results[cell.slot];
  const blocker = cellResultBlocker(r, cell.hashes);
  if (blocker !== undefined || !r) return blocker;
  if (cell.hashes !== 'none' && adapter !== undefined && r.adapter !== adapter) return 'passed on another adapter';
  if (cell.independent && !independentIn(accepted, cell.gateSlot, cell.hashes === 'none' ? undefined : (adapter ?? r.adapter))) return 'independent acceptance missing';
  return undefined;
}

/** Every cell passed on one adapter (the given one, or a common one) with equal hashes and independence where required. */
export function cellsPassed(ctx: RequirementContext, cells: readonly CellSpec[], adapter: string | undefined): boolean {
  let profile = adapter;
  for (let i = 0; i < cells.length; i++) {
    const cell = cells[i]!;
    if (cellBlocker(ctx, cell, profile) !== undefined) return false;
    if (profile === undefined && cell.hashes !== 'none') profile = ctx.results[cell.slot]?.adapter;
  }
  return true;
}

export function removalMet(ctx: RequirementContext): boolean {
  return removalMetWith(ctx, replacementReady(ctx));
}

/** `removalMet` given whether the replacement is ready (`openStanding` asks both and computes that once). */
function removalMetWith(ctx: RequirementContext, ready: boolean): boolean {
  const { conditions, cells } = ctx.spec;
  if (conditions.length + cells.length === 0) return false;
  if (conditions.length > 0 && !ready) return false;
  return cellsPassed(ctx, cells, conditions.length > 0 ? consumingAdapter(ctx) : undefined);
}

export function dropMet(ctx: RequirementContext): boolean {
  return ctx.spec.optIn && ctx.spec.dropCells.length > 0 && cellsPassed(ctx, ctx.spec.dropCells, undefined);
}

/** The cells a removed contract is held to: the ones it left by. */
export function leftByCells(ctx: RequirementContext): readonly CellSpec[] {
  return ctx.via === 'drop' ? ctx.spec.dropCells : ctx.spec.cells;
}

/** A failure on the current pins of a cell the contract left by. */
export function isRegression(ctx: RequirementContext, event: LifecycleEvent): boolean {
  if (event.type !== 'gate.result' || event.pass || !event.onPins) return false;
  return leftByCells(ctx).some((c) => c.key === event.key);
}

/**
 * What keeps a contract from leaving by `path` right now, condition by condition: the words a
 * refusal of `hook.removed`, `optimization.dropped` or `support.expanded` gives, so it names what
 * is really missing rather than a summary of every rule.
 */
export function leaveBlockers(ctx: RequirementContext, path: 'removal' | 'drop'): string[] {
  const out: string[] = [];
  if (path === 'drop') {
    if (!ctx.spec.optIn) return ['the hook is not opt-in: it has no drop path'];
    if (ctx.spec.dropCells.length === 0) return ['the hook declares no drop gates'];
  } else {
    if (ctx.spec.conditions.length + ctx.spec.cells.length === 0) return ['no removal or reopening gate is declared'];
    for (const c of ctx.spec.conditions) {
      const name = c.upstream ?? `replacement #${c.index}${c.subject !== ctx.spec.id ? ` of ${c.subject}` : ''}`;
      const after = releasedAfterPin(ctx, c);
      if (after) out.push(`${name} is released in ${after.version}, after the pin ${ctx.pin?.version ?? '?'}`);
      else if (!releasedOnPinnedLine(ctx, c)) out.push(`${name} is not released on the pinned line ${ctx.pin?.line ?? '?'}`);
      else if (ctx.consumed[c.slot] == null) out.push(`${name} is released but not consumed by the adapter on the current pins`);
    }
  }
  const cells = path === 'drop' ? ctx.spec.dropCells : ctx.spec.cells;
  let profile = path === 'removal' && ctx.spec.conditions.length > 0 ? consumingAdapter(ctx) : undefined;
  for (const cell of cells) {
    const blocker = cellBlocker(ctx, cell, profile);
    if (blocker !== undefined) out.push(`${cell.gate} [${cell.cell}]: ${blocker}`);
    else if (profile === undefined && cell.hashes !== 'none') profile = ctx.results[cell.slot]?.adapter;
  }
  return out;
}

/** The cells a removed contract left by (or the contract declares it left by) all passed on the current pins. */
export function coveringCellsPassed(ctx: RequirementContext): boolean {
  const cells = leftByCells(ctx);
  return cells.length > 0 && cellsPassed(ctx, cells, undefined);
}

export function regressionCleared(ctx: RequirementContext): boolean {
  const cells = leftByCells(ctx);
  return cells.length > 0 && cellsPassed(ctx, cells, undefined);
}

/** The last answer of `openStanding` and what it was computed from. */
const lastStanding = {
  spec: undefined as RequirementSpec | undefined,
  pin: null as LifecyclePin | null,
  released: undefined as unknown,
  consumed: undefined as unknown,
  results: undefined as unknown,
  accepted: undefined as unknown,
  standing: 'blocked' as 'blocked' | 'consumed' | 'authorized',
};

/**
 * Where an open (not yet removed) contract stands. The classifying guards of one step ask about
 * the same context in a row, so the last answer is kept, keyed by the fields it reads: reducers
 * replace a field rather than mutate it, so the same field objects mean the same answer (the fold
 * writes updates into a context it owns, whose identity alone would not say that).
 */
export function openStanding(ctx: RequirementContext): 'blocked' | 'consumed' | 'authorized' {
  const last = lastStanding;
  if (ctx.spec !== last.spec || ctx.pin !== last.pin || ctx.released !== last.released || ctx.consumed !== last.consumed || ctx.results !== last.results || ctx.accepted !== last.accepted) {
    last.standing = standingGiven(ctx, replacementReady(ctx));
    last.spec = ctx.spec;
    last.pin = ctx.pin;
    last.released = ctx.released;
    last.consumed = ctx.consumed;
    last.results = ctx.results;
    last.accepted = ctx.accepted;
  }
  return last.standing;
}

/** Where an open contract stands given whether its replacement is ready (`replacementReady`), computed afresh (no cache). */
export function standingGiven(ctx: RequirementContext, ready: boolean): 'blocked' | 'consumed' | 'authorized' {
  return removalMetWith(ctx, ready) || dropMet(ctx) ? 'authorized' : ready ? 'consumed' : 'blocked';
}

// ---- reducers -----------------------------------------------------------------------------

const voids = (engines: readonly string[], engine: string) => engines.includes(engine);

/** `list` with the slots `drop` says to empty set to null; the same array when none is. */
function without<T>(list: (T | null)[], drop: (value: T) => boolean): (T | null)[] {
  let out: (T | null)[] | undefined;
  for (let i = 0; i < list.length; i++) {
    const v = list[i];
    if (v != null && drop(v)) {
      out ??= list.slice();
      out[i] = null;
    }
  }
  return out ?? list;
}

function withSlot<T>(list: (T | null)[], slot: number, value: T): (T | null)[] {
  const out = list.slice();
  out[slot] = value;
  return out;
}

export function applyPin(ctx: RequirementContext, e: EventOf<'pin'>): Partial<RequirementContext> {
  const own = e.engine === ctx.spec.engine;
  const consumed = without(ctx.consumed, (c) => own || voids(c.engines, e.engine));
  const results = without(ctx.results, (r) => voids(r.engines, e.engine));
  let accepted = ctx.accepted;
  if (ctx.accepted.some((list) => list?.some((a) => voids(a.engines, e.engine)))) {
    accepted = ctx.accepted.map((list) => {
      const kept = list?.filter((a) => !voids(a.engines, e.engine)) ?? [];
      return kept.length ? kept : null;
    });
  }
  const update: Partial<RequirementContext> = {};
  if (own) update.pin = { version: e.version, line: e.line };
  if (consumed !== ctx.consumed) update.consumed = consumed;
  if (results !== ctx.results) update.results = results;
  if (accepted !== ctx.accepted) update.accepted = accepted;
  return Object.keys(update).length ? update : UNCHANGED;
}

export function applyRelease(ctx: RequirementContext, e: EventOf<'upstream.released'>): Partial<RequirementContext> {
  const slots = ctx.spec.slots.upstreams.get(e.upstream);
  if (!slots) return UNCHANGED;
  let released = ctx.released;
  for (const slot of slots) {
    const list = released[slot] ?? [];
    if (list.some((r) => r.line === e.line && r.version === e.version)) continue;
    released = withSlot(released, slot, [...list, { line: e.line, version: e.version }]);
  }
  return released === ctx.released ? UNCHANGED : { released };
}

export function applyConsumed(ctx: RequirementContext, e: EventOf<'consumed'>): Partial<RequirementContext> {
  const slot = ctx.spec.slots.conditions.get(`${e.subject}#${e.condition}`);
  if (!e.onPins || slot === undefined) return UNCHANGED;
  const consumption: Consumption = { engines: e.engines, seq: e.seq, ...(e.adapter ? { adapter: e.adapter } : {}), ...(e.release ? { release: e.release } : {}) };
  return { consumed: withSlot(ctx.consumed, slot, consumption) };
}

export function applyResult(ctx: RequirementContext, e: EventOf<'gate.result'>): Partial<RequirementContext> {
  const slot = ctx.spec.slots.cells.get(e.key);
  if (!e.onPins || slot === undefined) return UNCHANGED;
  const update: Partial<RequirementContext> = { results: withSlot(ctx.results, slot, e.result) };
  if (e.pass && e.independent) {
    const accepted = addIndependent(ctx.accepted, ctx.spec.slots.gates.get(e.gate)!, e.evidence);
    if (accepted !== ctx.accepted) update.accepted = accepted;
  }
  return update;
}

export function applyAcceptance(ctx: RequirementContext, e: EventOf<'gate.acceptance'>): Partial<RequirementContext> {
  const gateSlot = ctx.spec.slots.gates.get(e.gate);
  if (!e.onPins || !e.independent || gateSlot === undefined) return UNCHANGED;
  if (e.accepted) {
    const accepted = addIndependent(ctx.accepted, gateSlot, e.evidence);
    return accepted === ctx.accepted ? UNCHANGED : { accepted };
  }
  const kept = (ctx.accepted[gateSlot] ?? []).filter((a) => a.adapter !== e.adapter);
  return { accepted: withSlot(ctx.accepted, gateSlot, kept.length ? kept : null) };
}

export function noteRecheck(_ctx: RequirementContext, e: EventOf<'recheck'>): Partial<RequirementContext> {
  return { lastRecheck: e.at };
}

export function noteVerify(_ctx: RequirementContext, e: EventOf<'verify'>): Partial<RequirementContext> {
  return { verify: { result: e.result, at: e.at, seq: e.seq } };
}

export function refuse(ctx: RequirementContext, e: LifecycleEvent): Partial<RequirementContext> {
  return { refused: [...ctx.refused, { seq: e.seq, type: e.type }] };
}

/**
 * The same engine names (`join()` equal). The fold gives every result bound to one set of names
 * the same array, so the identity answers first and the names are compared only otherwise.
 */
export function sameEngines(a: readonly string[], b: readonly string[]): boolean {
  return a === b || a.join() === b.join();
}

/** Adds independent evidence for a gate once per profile (adapter and engines): repeats add nothing. */
function addIndependent(accepted: (IndependentEvidence[] | null)[], gateSlot: number, entry: IndependentEvidence): (IndependentEvidence[] | null)[] {
  const list = accepted[gateSlot] ?? [];
  for (let i = 0; i < list.length; i++) if (list[i]!.adapter === entry.adapter && sameEngines(list[i]!.engines, entry.engines)) return accepted;
  return withSlot(accepted, gateSlot, [...list, entry]);
}
