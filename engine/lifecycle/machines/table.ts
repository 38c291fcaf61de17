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

/** The first candidate whose guard holds for the context and event (plain loops: this runs per delivery). */
function firstTaken<C>(candidates: readonly CompiledTransition<C>[] | undefined, context: C, event: LifecycleEvent): CompiledTransition<C> | undefined {
  if (candidates === undefined) return undefined;
  for (let i = 0; i < candidates.length; i++) {
    const t = candidates[i]!;
    if (t.guard === undefined || t.guard(context, event)) return t;
  }
  return undefined;
}

/**
 * A contract's snapshot while the fold steps it through a run of events. The first update in a
 * run copies the context (`owned` from then on) and later updates are written into that copy: a
 * run of steps makes one new context instead of one per step. Reducers stay pure (they return
 * the fields that change) and replace, never mutate, what they change, so a context read by a
 * guard is always the one the pure step would have made; `changed` says the run changed it.
 * A context no update touched keeps its object, so the fold can tell what moved a contract.
 */
export interface Cursor<C> {
  value: string;
  context: C;
  owned: boolean;
  changed: boolean;
}

/** Writes a reducer's update into the cursor's context (copied at its first update); false when it changes nothing. */
export function cursorUpdate<C extends object>(cursor: Cursor<C>, update: Partial<C>): boolean {
  if (update === UNCHANGED) return false;
  if (cursor.owned) Object.assign(cursor.context, update);
  else {
    cursor.context = { ...cursor.context, ...update };
    cursor.owned = true;
  }
  cursor.changed = true;
  return true;
}

function applyInto<C extends object>(cursor: Cursor<C>, actions: readonly Reducer<C>[], event: LifecycleEvent): void {
  for (let i = 0; i < actions.length; i++) cursorUpdate(cursor, actions[i]!(cursor.context, event));
}

/** Eventless transitions from the cursor's state until none is taken. */
function settle<C extends object>(table: TransitionTable<C>, cursor: Cursor<C>, event: LifecycleEvent): void {
  for (let i = 0; ; i++) {
    if (i > MAX_ALWAYS) throw new Error(`lifecycle ${table.kind}: eventless transitions cycle in state '${cursor.value}'`);
    const taken = firstTaken(table.always[cursor.value], cursor.context, event);
    if (!taken) return;
    applyInto(cursor, taken.actions, event);
    if (taken.target !== undefined) cursor.value = taken.target;
  }
}

/** One event through the table on a cursor: the first candidate whose guard holds, then eventless transitions. True when a transition was taken. */
export function tableAdvance<C extends object>(table: TransitionTable<C>, cursor: Cursor<C>, event: LifecycleEvent): boolean {
  const taken = firstTaken(table.on[cursor.value]?.[event.type], cursor.context, event);
  if (!taken) return false;
  applyInto(cursor, taken.actions, event);
  if (taken.target !== undefined) cursor.value = taken.target;
  settle(table, cursor, event);
  return true;
}

const INIT = { type: 'xstate.init' } as unknown as LifecycleEvent;

/** The snapshot a contract starts in. */
export function tableStart<C extends object>(table: TransitionTable<C>, context: C): Snap<C> {
  const cursor: Cursor<C> = { value: 'start', context, owned: false, changed: false };
  settle(table, cursor, INIT);
  return { value: cursor.value, context: cursor.context };
}

/** One event as a pure step: the snapshot it leaves (`snap` itself when no transition was taken; `snap` is never written). */
export function tableStep<C extends object>(table: TransitionTable<C>, snap: Snap<C>, event: LifecycleEvent): Snap<C> {
  const cursor: Cursor<C> = { value: snap.value, context: snap.context, owned: false, changed: false };
  if (!tableAdvance(table, cursor, event)) return snap;
  return { value: cursor.value, context: cursor.context };
}

/** The same fold through xstate's own pure `transition()`: the reference the table is checked against. */
export function xstateFold<C extends object>(lifecycle: Lifecycle<C>, context: C, events: readonly LifecycleEvent[]): Snap<C> {
  let [snapshot] = initialTransition(lifecycle.machine, context);
  for (const event of events) [snapshot] = transition(lifecycle.machine, snapshot, event);
  return { value: snapshot.value as string, context: snapshot.context as C };
}
