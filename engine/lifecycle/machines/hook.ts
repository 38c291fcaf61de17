import type { LifecycleEvent } from './events.js';
import { type Guard, type Reducer, type StateSpec, defineLifecycle } from './define.js';
import {
  type RequirementContext,
  applyAcceptance, applyConsumed, applyPin, applyRelease, applyResult,
  dropMet, isRegression, noteRecheck, noteVerify, openStanding, refuse, regressionCleared, removalMet,
} from './requirement.js';

type C = RequirementContext;
const as = <E extends LifecycleEvent['type']>(f: (c: C, e: Extract<LifecycleEvent, { type: E }>) => Partial<C>): Reducer<C> => f as Reducer<C>;

export const requirementReducers: Record<string, Reducer<C>> = {
  applyPin: as<'pin'>(applyPin),
  applyRelease: as<'upstream.released'>(applyRelease),
  applyConsumed: as<'consumed'>(applyConsumed),
  applyResult: as<'gate.result'>(applyResult),
  applyAcceptance: as<'gate.acceptance'>(applyAcceptance),
  noteRecheck: as<'recheck'>(noteRecheck),
  noteVerify: as<'verify'>(noteVerify),
  refuse,
  viaReplacement: () => ({ via: 'replacement' }),
  viaDrop: () => ({ via: 'drop' }),
  reinstate: () => ({ via: null }),
};

export const requirementGuards: Record<string, Guard<C>> = {
  declaredRemoved: (c) => c.spec.declaredRemoved,
  standsBlocked: (c) => openStanding(c) === 'blocked',
  standsConsumed: (c) => openStanding(c) === 'consumed',
  standsAuthorized: (c) => openStanding(c) === 'authorized',
  removalAuthorized: (c, e) => 'onPins' in e && e.onPins && removalMet(c),
  dropAuthorized: (c, e) => 'onPins' in e && e.onPins && dropMet(c),
  isRegression,
  regressionCleared,
};

/** Evidence every state folds into its context. */
export const APPLY = {
  pin: { actions: 'applyPin' },
  'upstream.released': { actions: 'applyRelease' },
  consumed: { actions: 'applyConsumed' },
  'gate.result': { actions: 'applyResult' },
  'gate.acceptance': { actions: 'applyAcceptance' },
  recheck: { actions: 'noteRecheck' },
  verify: { actions: 'noteVerify' },
} as const;

/** Eventless re-classification of an open contract, leaving out the state it is in. */
export function classify(open: Record<'blocked' | 'consumed' | 'authorized', string>, self: string): StateSpec['always'] {
  const all = [
    { guard: 'standsAuthorized', target: open.authorized },
    { guard: 'standsConsumed', target: open.consumed },
    { guard: 'standsBlocked', target: open.blocked },
  ];
  return all.filter((t) => t.target !== self);
}

const OPEN = { blocked: 'kept', consumed: 'replacement-consumed', authorized: 'removable' };
const refused = { actions: 'refuse' };

/**
 * A hook: kept while its replacement is not released on the pinned line and consumed by the
 * adapter; replacement-consumed while removal gates are pending on that profile; removable once
 * every removal cell passed there (or, for opt-in hooks, the drop gates passed); removed only
 * by a `hook.removed` / `optimization.dropped` record while removable; regressed when a cell
 * it left by fails afterwards.
 */
export const hookLifecycle = defineLifecycle<C>('hook', requirementGuards, requirementReducers, {
  start: { always: [{ guard: 'declaredRemoved', target: 'removed' }, { target: 'kept' }] },
  kept: { on: { ...APPLY, removed: refused, dropped: refused, reinstated: refused }, always: classify(OPEN, 'kept') },
  'replacement-consumed': { on: { ...APPLY, removed: refused, dropped: refused, reinstated: refused }, always: classify(OPEN, 'replacement-consumed') },
  removable: {
    on: {
      ...APPLY,
      removed: [{ guard: 'removalAuthorized', target: 'removed', actions: 'viaReplacement' }, refused],
      dropped: [{ guard: 'dropAuthorized', target: 'removed', actions: 'viaDrop' }, refused],
      reinstated: refused,
    },
    always: classify(OPEN, 'removable'),
  },
  removed: {
    on: { ...APPLY, 'gate.result': [{ guard: 'isRegression', target: 'regressed', actions: 'applyResult' }, { actions: 'applyResult' }], removed: refused, dropped: refused, reinstated: refused },
  },
  regressed: {
    on: { ...APPLY, reinstated: { target: 'kept', actions: 'reinstate' }, removed: refused, dropped: refused },
    always: [{ guard: 'regressionCleared', target: 'removed' }],
  },
});
