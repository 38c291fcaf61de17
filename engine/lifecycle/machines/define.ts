import { type AnyStateMachine, assign, setup } from 'xstate';
import { sha256 } from '../ledger/canonical.js';
import type { LifecycleEvent, LifecycleEventType } from './events.js';
import type { LifecycleKind } from './requirements.js';

/** What a reducer returns when nothing changes: the fold then keeps the context object. */
export const UNCHANGED: Readonly<Record<string, never>> = Object.freeze({});

export type Guard<C> = (context: C, event: LifecycleEvent) => boolean;
export type Reducer<C> = (context: C, event: LifecycleEvent) => Partial<C>;

/** One transition of a state: an optional guard id, an optional target, action ids. */
export interface TransitionSpec {
  guard?: string;
  target?: string;
  actions?: string | string[];
}

export interface StateSpec {
  on?: Partial<Record<LifecycleEventType, TransitionSpec | TransitionSpec[]>>;
  always?: TransitionSpec[];
}

/**
 * A contract lifecycle: its xstate machine (built with `setup()`, flat, no children) and the
 * pure guards and reducers the machine is made of, so the fold can run the same definition
 * from a precomputed table (`machines/table.ts`).
 */
export interface Lifecycle<C extends object> {
  kind: LifecycleKind;
  machine: AnyStateMachine;
  guards: Record<string, Guard<C>>;
  reducers: Record<string, Reducer<C>>;
  /** The states in display order. */
  states: readonly string[];
}

/**
 * Builds a lifecycle machine: context comes from `input`, the initial state is `start`, whose
 * eventless transitions pick the first real state.
 */
export function defineLifecycle<C extends object>(kind: LifecycleKind, guards: Record<string, Guard<C>>, reducers: Record<string, Reducer<C>>, states: Record<string, StateSpec>): Lifecycle<C> {
  const xGuards = Object.fromEntries(Object.entries(guards).map(([name, g]) => [name, ({ context, event }: { context: C; event: LifecycleEvent }) => g(context, event)]));
  const xActions = Object.fromEntries(Object.entries(reducers).map(([name, r]) => [name, assign(({ context, event }: { context: C; event: LifecycleEvent }) => r(context, event) as never)]));
  const machine = setup({
    types: {} as { context: C; events: LifecycleEvent; input: C },
    guards: xGuards as never,
    actions: xActions as never,
  }).createMachine({
    id: kind,
    initial: 'start',
    context: ({ input }: { input: C }) => input,
    states: states as never,
  } as never);
  return { kind, machine: machine as unknown as AnyStateMachine, guards, reducers, states: Object.keys(states).filter((s) => s !== 'start') };
}

/** A hash of a lifecycle's definition: its state graph and the source of every guard and reducer. */
export function definitionHash(lifecycles: readonly Lifecycle<object>[]): string {
  const parts = lifecycles.map((l) => ({
    kind: l.kind,
    machine: JSON.stringify(l.machine.definition),
    guards: Object.entries(l.guards).map(([k, f]) => `${k}:${f.toString()}`),
    reducers: Object.entries(l.reducers).map(([k, f]) => `${k}:${f.toString()}`),
  }));
  return sha256(JSON.stringify(parts));
}
