import type { EvidenceRelease } from '../../model/index.js';
import { compareVersions } from './cells.js';
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

export interface RequirementContext {
  spec: RequirementSpec;
  pin?: LifecyclePin;
  /** Releases per upstream contract. */
  released: Record<string, EvidenceRelease[]>;
  /** Consumption per condition key, on the current pins. */
  consumed: Record<string, Consumption>;
  /** Latest result per `gate|cell`, on the current pins. */
  results: Record<string, CellResult>;
  /** Independent passes and acceptances per gate, on the current pins. */
  accepted: Record<string, IndependentEvidence[]>;
  lastRecheck?: string;
  verify?: { result: string; at: string; seq: number };
  /** Records the machine refused (a removal before it was authorized, …). */
  refused: { seq: number; type: string }[];
  /** How it left: by replacement, by dropping the optimization, or as declared in the contract. */
  via?: 'replacement' | 'drop' | 'declared';
}

export function requirementContext(spec: RequirementSpec, pin: LifecyclePin | undefined): RequirementContext {
  return { spec, ...(pin ? { pin } : {}), released: {}, consumed: {}, results: {}, accepted: {}, refused: [], ...(spec.declaredRemoved ? { via: 'declared' as const } : {}) };
}

// ---- guards -------------------------------------------------------------------------------

/** The condition's replacement is in a release on the pinned line, at or below the pinned version. */
export function releasedOnPinnedLine(ctx: RequirementContext, condition: ConditionSpec): boolean {
  const pin = ctx.pin;
  if (!pin) return false;
  const consumption = ctx.consumed[condition.key];
  const releases = condition.upstream ? (ctx.released[condition.upstream] ?? []) : consumption?.release ? [consumption.release] : [];
  return releases.some((r) => r.line === pin.line && compareVersions(r.version, pin.version) <= 0);
}

/** Every upstream condition is released on the pinned line and consumed by the adapter on the current pins. */
export function replacementReady(ctx: RequirementContext): boolean {
  const conditions = ctx.spec.conditions;
  return conditions.length > 0 && conditions.every((c) => ctx.consumed[c.key] !== undefined && releasedOnPinnedLine(ctx, c));
}

/** The adapter of the latest consumption: the profile removal gates must pass on. */
export function consumingAdapter(ctx: RequirementContext): string | undefined {
  let latest: Consumption | undefined;
  for (const c of Object.values(ctx.consumed)) if (!latest || c.seq > latest.seq) latest = c;
  return latest?.adapter;
}

export function independentOk(ctx: RequirementContext, gate: string, adapter: string | undefined): boolean {
  return (ctx.accepted[gate] ?? []).some((e) => adapter === undefined || e.adapter === adapter);
}

/** Why a cell does not count, or undefined when it passed on the profile. */
export function cellBlocker(ctx: RequirementContext, cell: CellSpec, adapter: string | undefined): string | undefined {
  const r = ctx.results[cell.key];
  if (!r) return 'no result on the current pins';
  if (!r.pass) return 'failed';
  if (cell.hashes !== 'none') {
    if (r.hashes === 'differ') return 'before/after hashes differ';
    if (r.hashes !== 'equal') return 'no before/after hashes in the ledger';
    if (!r.adapter) return 'no adapter hash in the profile';
    if (adapter !== undefined && r.adapter !== adapter) return 'passed on another adapter';
  }
  if (cell.independent && !independentOk(ctx, cell.gate, cell.hashes === 'none' ? undefined : (adapter ?? r.adapter))) return 'independent acceptance missing';
  return undefined;
}

/** Every cell passed on one adapter (the given one, or a common one) with equal hashes and independence where required. */
export function cellsPassed(ctx: RequirementContext, cells: readonly CellSpec[], adapter: string | undefined): boolean {
  let profile = adapter;
  for (const cell of cells) {
    if (cellBlocker(ctx, cell, profile) !== undefined) return false;
    if (profile === undefined && cell.hashes !== 'none') profile = ctx.results[cell.key]?.adapter;
  }
  return true;
}

export function removalMet(ctx: RequirementContext): boolean {
  const { conditions, cells } = ctx.spec;
  if (conditions.length + cells.length === 0) return false;
  if (conditions.length > 0 && !replacementReady(ctx)) return false;
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
  const key = `${event.gate}|${event.cell}`;
  return leftByCells(ctx).some((c) => c.key === key);
}

export function regressionCleared(ctx: RequirementContext): boolean {
  const cells = leftByCells(ctx);
  return cells.length > 0 && cellsPassed(ctx, cells, undefined);
}

/** Where an open (not yet removed) contract stands. */
export function openStanding(ctx: RequirementContext): 'blocked' | 'consumed' | 'authorized' {
  if (removalMet(ctx) || dropMet(ctx)) return 'authorized';
  if (replacementReady(ctx)) return 'consumed';
  return 'blocked';
}

// ---- reducers -----------------------------------------------------------------------------

const voids = (engines: readonly string[], engine: string) => engines.includes(engine);

export function applyPin(ctx: RequirementContext, e: EventOf<'pin'>): Partial<RequirementContext> {
  const own = e.engine === ctx.spec.engine;
  const consumed = filterRecord(ctx.consumed, (c) => !(own || voids(c.engines, e.engine)));
  const results = filterRecord(ctx.results, (r) => !voids(r.engines, e.engine));
  let accepted = ctx.accepted;
  if (Object.values(ctx.accepted).some((list) => list.some((a) => voids(a.engines, e.engine)))) {
    accepted = {};
    for (const [gate, list] of Object.entries(ctx.accepted)) {
      const kept = list.filter((a) => !voids(a.engines, e.engine));
      if (kept.length) accepted[gate] = kept;
    }
  }
  const update: Partial<RequirementContext> = {};
  if (own) update.pin = { version: e.version, line: e.line };
  if (consumed !== ctx.consumed) update.consumed = consumed;
  if (results !== ctx.results) update.results = results;
  if (accepted !== ctx.accepted) update.accepted = accepted;
  return update;
}

export function applyRelease(ctx: RequirementContext, e: EventOf<'upstream.released'>): Partial<RequirementContext> {
  const list = ctx.released[e.upstream] ?? [];
  if (list.some((r) => r.line === e.line && r.version === e.version)) return {};
  return { released: { ...ctx.released, [e.upstream]: [...list, { line: e.line, version: e.version }] } };
}

export function applyConsumed(ctx: RequirementContext, e: EventOf<'consumed'>): Partial<RequirementContext> {
  const key = `${e.subject}#${e.condition}`;
  if (!e.onPins || !ctx.spec.conditions.some((c) => c.key === key)) return {};
  const consumption: Consumption = { engines: e.engines, seq: e.seq, ...(e.adapter ? { adapter: e.adapter } : {}), ...(e.release ? { release: e.release } : {}) };
  return { consumed: { ...ctx.consumed, [key]: consumption } };
}

export function applyResult(ctx: RequirementContext, e: EventOf<'gate.result'>): Partial<RequirementContext> {
  const key = `${e.gate}|${e.cell}`;
  if (!e.onPins || !(ctx.spec.cells.some((c) => c.key === key) || ctx.spec.dropCells.some((c) => c.key === key))) return {};
  const result: CellResult = { pass: e.pass, hashes: e.hashes, engines: e.engines, independent: e.independent, seq: e.seq, actor: e.actor, ...(e.adapter ? { adapter: e.adapter } : {}) };
  const update: Partial<RequirementContext> = { results: { ...ctx.results, [key]: result } };
  if (e.pass && e.independent) {
    const accepted = addIndependent(ctx.accepted, e.gate, { engines: e.engines, seq: e.seq, ...(e.adapter ? { adapter: e.adapter } : {}) });
    if (accepted !== ctx.accepted) update.accepted = accepted;
  }
  return update;
}

export function applyAcceptance(ctx: RequirementContext, e: EventOf<'gate.acceptance'>): Partial<RequirementContext> {
  if (!e.onPins || !e.independent) return {};
  if (!(ctx.spec.cells.some((c) => c.gate === e.gate) || ctx.spec.dropCells.some((c) => c.gate === e.gate))) return {};
  if (e.accepted) {
    const accepted = addIndependent(ctx.accepted, e.gate, { engines: e.engines, seq: e.seq, ...(e.adapter ? { adapter: e.adapter } : {}) });
    return accepted === ctx.accepted ? {} : { accepted };
  }
  const kept = (ctx.accepted[e.gate] ?? []).filter((a) => a.adapter !== e.adapter);
  const accepted = { ...ctx.accepted };
  if (kept.length) accepted[e.gate] = kept;
  else delete accepted[e.gate];
  return { accepted };
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

/** Adds independent evidence for a gate once per profile (adapter and engines): repeats add nothing. */
function addIndependent(accepted: Record<string, IndependentEvidence[]>, gate: string, entry: IndependentEvidence): Record<string, IndependentEvidence[]> {
  const list = accepted[gate] ?? [];
  if (list.some((a) => a.adapter === entry.adapter && a.engines.join() === entry.engines.join())) return accepted;
  return { ...accepted, [gate]: [...list, entry] };
}

function filterRecord<T>(record: Record<string, T>, keep: (value: T) => boolean): Record<string, T> {
  let changed = false;
  const out: Record<string, T> = {};
  for (const [k, v] of Object.entries(record)) {
    if (keep(v)) out[k] = v;
    else changed = true;
  }
  return changed ? out : record;
}
