import { UNCHANGED } from './define.js';
import type { EventOf, LifecycleEvent } from './events.js';
import { requirementGuards, requirementReducers } from './hook.js';
import { type CellResult, type IndependentEvidence, type RequirementContext, cellBlockerIn, consumingAdapter, replacementReady, sameEngines } from './requirement.js';
import type { RequirementSpec } from './requirements.js';
import type { TransitionTable } from './table.js';

/**
 * A run of gate results folded at once into a hook or a restriction, as long as none moves it.
 *
 * Most of a large fold's deliveries are gate results handed to the hooks and restrictions whose
 * cells they fill. Stepped one by one through the table, each copies the context's result list
 * and asks the state's eventless re-classification again (which re-derives the replacement's
 * readiness, a walk over releases and versions). A run folds them in one pass instead, with the
 * same outcome, where the table says it may:
 *
 * - the state takes a gate result with the plain apply (one candidate, no guard, no target, the
 *   `applyResult` reducer alone) and its eventless transitions ask only the standing guards
 *   (`standsAuthorized` / `standsConsumed` / `standsBlocked`): read from the compiled table, so a
 *   changed machine definition turns runs off by itself;
 * - then a settled contract's state stays put exactly while its standing stays what it was at the
 *   run's start. A result changes only the results and the independent passes, never the
 *   replacement's readiness (pin, releases, consumption) nor the consuming adapter, so both are
 *   derived once per run. With no drop path, a contract whose replacement is not ready stands
 *   `blocked` whatever its cells say; one whose replacement is ready and consumed by an adapter
 *   stands `authorized` exactly when none of its removal cells is blocked on that adapter, and a
 *   result changes only the blockers of its own cell (and, adding an independent pass, of its
 *   gate's cells), so the run keeps a count of blocked cells. Any other contract (a drop path, no
 *   conditions, consumption without an adapter) takes no run. The run stops before the first
 *   result that would change the standing; the fold steps that one through the table.
 *
 * Each result keeps its cell's last result on the current pins and adds an independent pass
 * once per profile, in ledger order, as `applyResult` does. The randomized spec
 * `spec/lifecycle/result-run.spec.ts` compares folds made with runs against xstate.
 */

const STANDING_GUARDS = new Set([requirementGuards['standsAuthorized'], requirementGuards['standsConsumed'], requirementGuards['standsBlocked']]);
const APPLY_RESULT = requirementReducers['applyResult'];
const NOTE_RECHECK = requirementReducers['noteRecheck'];

const runStates = new WeakMap<TransitionTable<object>, Set<string>>();

/** The states of a table where a gate result is the plain apply and re-classification reads only the standing. */
export function resultRunStates(table: TransitionTable<object>): ReadonlySet<string> {
  let states = runStates.get(table);
  if (states) return states;
  states = new Set();
  for (const [state, on] of Object.entries(table.on)) {
    const candidates = on['gate.result'];
    if (!candidates || candidates.length !== 1) continue;
    const only = candidates[0]!;
    if (only.guard !== undefined || only.target !== undefined || only.actions.length !== 1 || only.actions[0] !== APPLY_RESULT) continue;
    if (!(table.always[state] ?? []).every((t) => t.guard !== undefined && STANDING_GUARDS.has(t.guard))) continue;
    states.add(state);
  }
  runStates.set(table, states);
  return states;
}

const recheckStates = new WeakMap<TransitionTable<object>, Set<string>>();

/**
 * The run states (`resultRunStates`) where a recheck is the plain note (one candidate, no guard,
 * no target, the `noteRecheck` reducer alone): a run takes rechecks there too. A recheck writes
 * only `lastRecheck`, which the standing does not read (`openStanding` is a function of the spec,
 * pin, releases, consumption, results and independent passes), so the standing guards answer as
 * before it and the contract stays put.
 */
export function recheckRunStates(table: TransitionTable<object>): ReadonlySet<string> {
  let states = recheckStates.get(table);
  if (states) return states;
  states = new Set();
  for (const state of resultRunStates(table)) {
    const candidates = table.on[state]?.['recheck'];
    if (!candidates || candidates.length !== 1) continue;
    const only = candidates[0]!;
    if (only.guard !== undefined || only.target !== undefined || only.actions.length !== 1 || only.actions[0] !== NOTE_RECHECK) continue;
    states.add(state);
  }
  recheckStates.set(table, states);
  return states;
}

export interface ResultRun {
  /** The changed fields (`UNCHANGED` when no result applied). */
  update: Partial<RequirementContext>;
  /** Where the run stopped: the first queued event it did not take (`from` when it takes none). */
  end: number;
}

/** Per spec: the removal cells reading each result slot, and the independent ones reading each gate slot. */
const readersOf = new WeakMap<RequirementSpec, { bySlot: number[][]; byGate: number[][] }>();

/** The spec asked last and its readers: a contract's runs of one batch follow each other, so most asks repeat it (no WeakMap lookup per run). */
let lastSpec: RequirementSpec | undefined;
let lastReaders: { bySlot: number[][]; byGate: number[][] } | undefined;

function readers(spec: RequirementSpec): { bySlot: number[][]; byGate: number[][] } {
  if (spec === lastSpec) return lastReaders!;
  let known = readersOf.get(spec);
  if (known) {
    lastSpec = spec;
    lastReaders = known;
    return known;
  }
  const bySlot: number[][] = Array.from({ length: spec.slots.cells.size }, () => []);
  const byGate: number[][] = Array.from({ length: spec.slots.gates.size }, () => []);
  spec.cells.forEach((cell, i) => {
    bySlot[cell.slot]!.push(i);
    if (cell.independent) byGate[cell.gateSlot]!.push(i);
  });
  known = { bySlot, byGate };
  readersOf.set(spec, known);
  lastSpec = spec;
  lastReaders = known;
  return known;
}

/**
 * Folds the gate results (and, in a recheck run state, the rechecks among them) `events[indexes[from]] … events[indexes[to - 1]]` into a settled
 * contract in a run state (`resultRunStates`) with context `ctx`: what `applyResult` stepped over
 * them changes, up to the first result that would change the contract's standing (not taken).
 * Pure: `ctx` is not written; one copy of the result list, the accepted list copied only when an
 * independent pass adds to it.
 */
export function applyResultRun(ctx: RequirementContext, events: readonly LifecycleEvent[], indexes: Int32Array, from: number, to: number): ResultRun {
  const spec = ctx.spec;
  if (spec.conditions.length === 0 || (spec.optIn && spec.dropCells.length > 0)) return { update: UNCHANGED, end: from };
  const ready = replacementReady(ctx);
  const adapter = ready ? consumingAdapter(ctx) : undefined;
  if (ready && adapter === undefined) return { update: UNCHANGED, end: from };
  const { cells, gates } = spec.slots;
  const removal = spec.cells;
  const { bySlot, byGate } = readers(spec);
  let results = ctx.results;
  let accepted = ctx.accepted;
  let acceptedOwned = false;
  // Removal cells blocked on the consuming adapter (ready only): the standing is `authorized` exactly at 0.
  let blocked = 0;
  if (ready) for (let i = 0; i < removal.length; i++) if (cellBlockerIn(results, accepted, removal[i]!, adapter) !== undefined) blocked++;
  const authorized = blocked === 0;
  let applied = 0;
  // The last recheck taken (a run of a recheck state, `recheckRunStates`); undefined: none.
  let lastRecheck: string | undefined;
  let q = from;
  for (; q < to; q++) {
    const queued = events[indexes[q]!]!;
    if (queued.type === 'recheck') {
      lastRecheck = queued.at;
      continue;
    }
    const e = queued as EventOf<'gate.result'>;
    const slot = cells.get(e.key);
    if (!e.onPins || slot === undefined) continue;
    if (applied === 0) results = results.slice();
    const previous: CellResult | null = results[slot]!;
    const readsSlot = bySlot[slot]!;
    if (ready) for (let i = 0; i < readsSlot.length; i++) if (cellBlockerIn(results, accepted, removal[readsSlot[i]!]!, adapter) !== undefined) blocked--;
    results[slot] = e.result;
    if (ready) for (let i = 0; i < readsSlot.length; i++) if (cellBlockerIn(results, accepted, removal[readsSlot[i]!]!, adapter) !== undefined) blocked++;
    let gateSlot = -1;
    let listBefore: IndependentEvidence[] | null = null;
    let copiedHere = false;
    if (e.pass && e.independent) {
      gateSlot = gates.get(e.gate)!;
      listBefore = accepted[gateSlot] ?? null;
      const list = listBefore ?? [];
      if (hasProfile(list, e.evidence)) gateSlot = -1;
      else {
        if (!acceptedOwned) {
          accepted = accepted.slice();
          acceptedOwned = copiedHere = true;
        }
        accepted[gateSlot] = [...list, e.evidence];
        // A new independent pass can unblock the gate's independent cells: count them again.
        if (ready && byGate[gateSlot]!.length > 0) {
          blocked = 0;
          for (let i = 0; i < removal.length; i++) if (cellBlockerIn(results, accepted, removal[i]!, adapter) !== undefined) blocked++;
        }
      }
    }
    if (ready && (blocked === 0) !== authorized) {
      // This result moves the contract: put it back and leave it to the table.
      results[slot] = previous;
      if (copiedHere) {
        accepted = ctx.accepted;
        acceptedOwned = false;
      } else if (gateSlot >= 0) accepted[gateSlot] = listBefore;
      break;
    }
    applied++;
  }
  if (applied === 0 && lastRecheck === undefined) return { update: UNCHANGED, end: q };
  const update: Partial<RequirementContext> = applied === 0 ? {} : acceptedOwned ? { results, accepted } : { results };
  if (lastRecheck !== undefined) update.lastRecheck = lastRecheck;
  return { update, end: q };
}

function hasProfile(list: readonly IndependentEvidence[], entry: IndependentEvidence): boolean {
  for (let i = 0; i < list.length; i++) if (list[i]!.adapter === entry.adapter && sameEngines(list[i]!.engines, entry.engines)) return true;
  return false;
}
