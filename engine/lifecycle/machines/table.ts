import { initialTransition, transition } from 'xstate';
import { type Guard, type Lifecycle, type Reducer, UNCHANGED } from './define.js';
import type { LifecycleEvent } from './events.js';

interface CompiledTransition<C> {
  guard?: Guard<C>;
  target?: string;
  actions: Reducer<C>[];
}

/**
 * A lifecycle's transition table, read once from its xstate machine definition: per state and
 * event type the ordered candidate transitions (guard, target, reducers), and the eventless
 * ones. Folding with it gives what `transition()` gives (a spec proves it on random evidence)
 * at a fraction of the cost, which the cold fold of a large ledger needs.
 */
export interface TransitionTable<C> {
  kind: string;
  on: Record<string, Partial<Record<string, CompiledTransition<C>[]>>>;
  always: Record<string, CompiledTransition<C>[]>;
}

export interface Snap<C> {
  value: string;
  context: C;
}

/** Eventless transitions chained from one event; more means a cycle in the definition. */
const MAX_ALWAYS = 16;

type TransitionDef = { guard?: unknown; target?: ReadonlyArray<{ key: string }>; actions: ReadonlyArray<unknown> };

export function compileTable<C extends object>(lifecycle: Lifecycle<C>): TransitionTable<C> {
  const compile = (t: TransitionDef): CompiledTransition<C> => {
    const guardId = typeof t.guard === 'string' ? t.guard : (t.guard as { type?: string } | undefined)?.type;
    const guard = guardId !== undefined ? lifecycle.guards[guardId] : undefined;
    if (guardId !== undefined && !guard) throw new Error(`lifecycle ${lifecycle.kind}: guard '${guardId}' has no implementation`);
    const actions = t.actions.map((a) => {
      const id = typeof a === 'string' ? a : (a as { type?: string }).type;
      const reducer = id !== undefined ? lifecycle.reducers[id] : undefined;
      if (!reducer) throw new Error(`lifecycle ${lifecycle.kind}: action '${String(id)}' is not a reducer`);
      return reducer;
    });
    const target = t.target?.[0]?.key;
    return { ...(guard ? { guard } : {}), ...(target !== undefined ? { target } : {}), actions };
  };
  const on: TransitionTable<C>['on'] = {};
  const always: TransitionTable<C>['always'] = {};
  const root = lifecycle.machine.root as unknown as { states: Record<string, { transitions: Map<string, TransitionDef[]>; always?: TransitionDef[] }> };
  for (const [key, node] of Object.entries(root.states)) {
    on[key] = Object.fromEntries([...node.transitions.entries()].map(([type, list]) => [type, list.map(compile)]));
    always[key] = (node.always ?? []).map(compile);
  }
  return { kind: lifecycle.kind, on, always };
}

function apply<C>(context: C, actions: readonly Reducer<C>[], event: LifecycleEvent): C {
  let next = context;
  for (let i = 0; i < actions.length; i++) {
    const update = actions[i]!(next, event);
    // An unchanged context keeps its object, so the fold can tell what moved a contract.
    if (update !== UNCHANGED) next = { ...next, ...update };
  }
  return next;
}

/** The first candidate whose guard holds for the context and event (plain loops: this runs per delivery). */
function firstTaken<C>(candidates: readonly CompiledTransition<C>[] | undefined, context: C, event: LifecycleEvent): CompiledTransition<C> | undefined {
  if (candidates === undefined) return undefined;
  for (let i = 0; i < candidates.length; i++) {
    const t = candidates[i]!;
    if (t.guard === undefined || t.guard(context, event)) return t;
  }
  return undefined;
}

function settle<C>(table: TransitionTable<C>, value: string, context: C, event: LifecycleEvent): Snap<C> {
  for (let i = 0; ; i++) {
    if (i > MAX_ALWAYS) throw new Error(`lifecycle ${table.kind}: eventless transitions cycle in state '${value}'`);
    const taken = firstTaken(table.always[value], context, event);
    if (!taken) return { value, context };
    context = apply(context, taken.actions, event);
    if (taken.target !== undefined) value = taken.target;
  }
}

const INIT = { type: 'xstate.init' } as unknown as LifecycleEvent;

/** The snapshot a contract starts in. */
export function tableStart<C>(table: TransitionTable<C>, context: C): Snap<C> {
  return settle(table, 'start', context, INIT);
}

/** One event through the table: the first candidate whose guard holds, then eventless transitions. */
export function tableStep<C>(table: TransitionTable<C>, snap: Snap<C>, event: LifecycleEvent): Snap<C> {
  const taken = firstTaken(table.on[snap.value]?.[event.type], snap.context, event);
  if (!taken) return snap;
  const context = apply(snap.context, taken.actions, event);
  return settle(table, taken.target ?? snap.value, context, event);
}

/**
 * A contract's snapshot while the fold steps it through a run of events. The first update in a
 * run copies the context (`owned` from then on) and later updates are written into that copy: a
 * run of steps makes one new context instead of one per step. Reducers stay pure (they return
 * the fields that change) and replace, never mutate, what they change, so a context read by a
 * guard is always the one the pure step would have made; `changed` says the run changed it.
 */
export interface Cursor<C> {
  value: string;
  context: C;
  owned: boolean;
  changed: boolean;
}

function applyInto<C extends object>(cursor: Cursor<C>, actions: readonly Reducer<C>[], event: LifecycleEvent): void {
  for (let i = 0; i < actions.length; i++) {
    const update = actions[i]!(cursor.context, event);
    if (update === UNCHANGED) continue;
    if (cursor.owned) Object.assign(cursor.context, update);
    else {
      cursor.context = { ...cursor.context, ...update };
      cursor.owned = true;
    }
    cursor.changed = true;
  }
}

/** `tableStep` on a cursor: true when a transition was taken (the state or the context may have moved). */
export function tableAdvance<C extends object>(table: TransitionTable<C>, cursor: Cursor<C>, event: LifecycleEvent): boolean {
  const taken = firstTaken(table.on[cursor.value]?.[event.type], cursor.context, event);
  if (!taken) return false;
  applyInto(cursor, taken.actions, event);
  if (taken.target !== undefined) cursor.value = taken.target;
  for (let i = 0; ; i++) {
    if (i > MAX_ALWAYS) throw new Error(`lifecycle ${table.kind}: eventless transitions cycle in state '${cursor.value}'`);
    const next = firstTaken(table.always[cursor.value], cursor.context, event);
    if (!next) return true;
    applyInto(cursor, next.actions, event);
    if (next.target !== undefined) cursor.value = next.target;
  }
}

/** The same fold through xstate's own pure `transition()`: the reference the table is checked against. */
export function xstateFold<C extends object>(lifecycle: Lifecycle<C>, context: C, events: readonly LifecycleEvent[]): Snap<C> {
  let [snapshot] = initialTransition(lifecycle.machine, context);
  for (const event of events) [snapshot] = transition(lifecycle.machine, snapshot, event);
  return { value: snapshot.value as string, context: snapshot.context as C };
}
