import { UNCHANGED } from './define.js';
import { cellResultBlocker } from './cell-pass.js';
import type { EventOf, LifecycleEvent } from './events.js';
import { type Reducer, type StateSpec, defineLifecycle } from './define.js';
import { type CellResult, type IndependentEvidence, sameEngines } from './requirement.js';
import type { GateSpec } from './requirements.js';

export interface GateContext {
  spec: GateSpec;
  /** Latest result per cell on the current pins. */
  results: Record<string, CellResult>;
  /** Independent passes and acceptances on the current pins. */
  accepted: IndependentEvidence[];
  lastRecheck: string | null;
}

export function gateContext(spec: GateSpec): GateContext {
  return { spec, results: {}, accepted: [], lastRecheck: null };
}

/** Why a gate cell is not passed, or undefined: the one rule of `cellResultBlocker`. */
export function gateCellBlocker(ctx: GateContext, cell: string): string | undefined {
  return cellResultBlocker(ctx.results[cell], ctx.spec.hashes);
}

export type GateStanding = 'pending' | 'failed' | 'awaiting-acceptance' | 'passed';

const last = { spec: undefined as GateSpec | undefined, results: undefined as unknown, accepted: undefined as unknown, standing: 'pending' as GateStanding };

/**
 * A gate's standing. The classifying guards of one step ask about the same context in a row, so
 * the last answer is kept, keyed by the fields it reads (reducers replace them, never mutate).
 */
export function gateStanding(ctx: GateContext): GateStanding {
  if (ctx.spec !== last.spec || ctx.results !== last.results || ctx.accepted !== last.accepted) {
    last.standing = computeStanding(ctx);
    last.spec = ctx.spec;
    last.results = ctx.results;
    last.accepted = ctx.accepted;
  }
  return last.standing;
}

function computeStanding(ctx: GateContext): GateStanding {
  // Plain loops: this runs after every result a gate takes.
  const cells = ctx.spec.cells;
  for (let i = 0; i < cells.length; i++) if (ctx.results[cells[i]!]?.pass === false) return 'failed';
  for (let i = 0; i < cells.length; i++) if (gateCellBlocker(ctx, cells[i]!) !== undefined) return 'pending';
  if (ctx.spec.independent && ctx.accepted.length === 0) return 'awaiting-acceptance';
  return 'passed';
}

/** Independent evidence once per profile: repeats add nothing. */
function addOnce(list: IndependentEvidence[], entry: IndependentEvidence): IndependentEvidence[] {
  return list.some((a) => a.adapter === entry.adapter && sameEngines(a.engines, entry.engines)) ? list : [...list, entry];
}

const voided = (engines: readonly string[], engine: string) => engines.includes(engine);

const reducers: Record<string, Reducer<GateContext>> = {
  applyResult: (ctx, event) => {
    const e = event as EventOf<'gate.result'>;
    if (!e.onPins || !ctx.spec.cells.includes(e.cell)) return UNCHANGED;
    const result: CellResult = e.result;
    const accepted = e.pass && e.independent ? addOnce(ctx.accepted, e.evidence) : ctx.accepted;
    // Copied key by key, then the cell set: the keys and their order a spread with the cell last gives.
    const results: Record<string, CellResult> = {};
    for (const cell in ctx.results) results[cell] = ctx.results[cell]!;
    results[e.cell] = result;
    return { results, accepted };
  },
  applyAcceptance: (ctx, event) => {
    const e = event as EventOf<'gate.acceptance'>;
    if (!e.onPins || !e.independent) return UNCHANGED;
    if (!e.accepted) return { accepted: ctx.accepted.filter((a) => a.adapter !== e.adapter) };
    const accepted = addOnce(ctx.accepted, e.evidence);
    return accepted === ctx.accepted ? UNCHANGED : { accepted };
  },
  applyPin: (ctx, event) => {
    const e = event as EventOf<'pin'>;
    const affected = Object.values(ctx.results).some((r) => voided(r.engines, e.engine)) || ctx.accepted.some((a) => voided(a.engines, e.engine));
    if (!affected) return UNCHANGED;
    const results: Record<string, CellResult> = {};
    for (const [cell, r] of Object.entries(ctx.results)) if (!voided(r.engines, e.engine)) results[cell] = r;
    return { results, accepted: ctx.accepted.filter((a) => !voided(a.engines, e.engine)) };
  },
  noteRecheck: (_ctx, event) => ({ lastRecheck: (event as EventOf<'recheck'>).at }),
};

const STANDINGS: GateStanding[] = ['failed', 'passed', 'awaiting-acceptance', 'pending'];
const guards = Object.fromEntries(STANDINGS.map((s) => [`stands-${s}`, (c: GateContext, _e: LifecycleEvent) => gateStanding(c) === s]));
const on = { 'gate.result': { actions: 'applyResult' }, 'gate.acceptance': { actions: 'applyAcceptance' }, pin: { actions: 'applyPin' }, recheck: { actions: 'noteRecheck' } } as const;
const state = (self: GateStanding): StateSpec => ({ on, always: STANDINGS.filter((s) => s !== self).map((s) => ({ guard: `stands-${s}`, target: s })) });

/**
 * A qualification gate: pending until every cell passed on the current pins (a new gate is
 * pending until its first pass; a pin change voids passes bound to that engine); failed while a
 * cell's latest result is a failure; awaiting-acceptance when it needs an independent actor and
 * only the author's evidence exists; passed otherwise.
 */
export const gateLifecycle = defineLifecycle<GateContext>('gate', guards, reducers, {
  start: { always: [{ target: 'pending' }] },
  pending: state('pending'),
  'awaiting-acceptance': state('awaiting-acceptance'),
  passed: state('passed'),
  failed: state('failed'),
});
