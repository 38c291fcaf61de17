import { UNCHANGED } from './define.js';
import type { EvidenceRelease } from '../../model/index.js';
import type { EventOf, LifecycleEvent } from './events.js';
import { type Reducer, type StateSpec, defineLifecycle } from './define.js';
import type { UpstreamSpec } from './requirements.js';

export interface UpstreamContext {
  spec: UpstreamSpec;
  /** The pull request's state as last checked. */
  pr: 'open' | 'merged' | 'closed' | null;
  releasedIn: EvidenceRelease[];
  lastRecheck: string | null;
}

export function upstreamContext(spec: UpstreamSpec): UpstreamContext {
  return { spec, pr: null, releasedIn: [], lastRecheck: null };
}

export type UpstreamStanding = 'unverified' | 'open' | 'merged' | 'closed' | 'released';

/** Released wins: merged is not released, and only a release on a line counts for hooks. */
export function upstreamStanding(ctx: UpstreamContext): UpstreamStanding {
  if (ctx.releasedIn.length > 0) return 'released';
  return ctx.pr ?? 'unverified';
}

const reducers: Record<string, Reducer<UpstreamContext>> = {
  applyState: (_ctx, event) => ({ pr: (event as EventOf<'upstream.state'>).state }),
  applyRelease: (ctx, event) => {
    const e = event as EventOf<'upstream.released'>;
    if (ctx.releasedIn.some((r) => r.line === e.line && r.version === e.version)) return UNCHANGED;
    return { releasedIn: [...ctx.releasedIn, { line: e.line, version: e.version }] };
  },
  noteRecheck: (_ctx, event) => ({ lastRecheck: (event as EventOf<'recheck'>).at }),
};

const STANDINGS: UpstreamStanding[] = ['released', 'merged', 'open', 'closed', 'unverified'];
const guards = Object.fromEntries(STANDINGS.map((s) => [`stands-${s}`, (c: UpstreamContext, _e: LifecycleEvent) => upstreamStanding(c) === s]));
const on = { 'upstream.state': { actions: 'applyState' }, 'upstream.released': { actions: 'applyRelease' }, recheck: { actions: 'noteRecheck' } } as const;
const state = (self: UpstreamStanding): StateSpec => ({ on, always: STANDINGS.filter((s) => s !== self).map((s) => ({ guard: `stands-${s}`, target: s })) });

/** A tracked upstream change: unverified until a recheck records it; open, merged, closed; released once a release on some line contains it. */
export const upstreamLifecycle = defineLifecycle<UpstreamContext>('upstream', guards, reducers, {
  start: { always: [{ target: 'unverified' }] },
  unverified: state('unverified'),
  open: state('open'),
  merged: state('merged'),
  closed: state('closed'),
  released: state('released'),
});
