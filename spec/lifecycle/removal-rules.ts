/**
 * The removal rules, stated from the README ("Evidence and removal gates") and issue 10, item 22,
 * without the machines' guards: an oracle that reads only the history of events a contract was
 * sent and the facts of the walk registry written out below. The machine spec checks every edge
 * the machines have against it.
 *
 * - A contract may leave (a hook be removed, a restriction reopen) only when every replacement
 *   it waits for is released on the pinned line (at or before the pinned version) and consumed by
 *   the adapter on the current pins, and every removal gate cell's latest result on the current
 *   pins is a pass on the consuming adapter with equal before/after hashes recorded in the ledger;
 *   a gate that needs independent acceptance also needs an independent pass or acceptance on it.
 * - An opt-in hook may instead leave by dropping its optimization when every drop cell's latest
 *   result is a pass with equal hashes (one adapter for all of them).
 * - A pin change voids the consumption and the results bound to that engine.
 */
import type { LifecycleEvent } from '../../engine/lifecycle/index.js';

/** What the oracle knows of a contract, copied from the walk registry's YAML by hand. */
export interface RemovalFacts {
  engine: string;
  pin: { version: string; line: string };
  /** One entry per upstream condition: the tracked upstream, or none (the release comes with the consumption). */
  conditions: { subject: string; index: number; upstream?: string }[];
  cells: { gate: string; cell: string; independent: boolean; hashes: boolean }[];
  dropCells: { gate: string; cell: string; independent: boolean; hashes: boolean }[];
}

/** `1.2.0` vs `1.3.0`: the walk registry's versions are plain dotted numbers. */
function atOrBefore(a: string, b: string): boolean {
  const x = a.split('.').map(Number);
  const y = b.split('.').map(Number);
  for (let i = 0; i < Math.max(x.length, y.length); i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) < (y[i] ?? 0);
  return true;
}

export interface RemovalVerdict {
  /** Every replacement released on the pinned line and consumed. */
  ready: boolean;
  /** The removal (or reopening) path is met. */
  removal: boolean;
  /** The drop path is met. */
  drop: boolean;
}

/** What the README's rules say about a contract after `history`. */
export function removalVerdict(facts: RemovalFacts, history: readonly LifecycleEvent[]): RemovalVerdict {
  let pin = facts.pin;
  // Everything since the last pin change of an engine the evidence is bound to; releases are facts of the world and stay.
  let since = 0;
  const releases: { upstream: string; line: string; version: string }[] = [];
  history.forEach((e, i) => {
    if (e.type === 'pin') {
      if (e.engine === facts.engine) pin = { version: e.version, line: e.line };
      since = i + 1;
    }
    if (e.type === 'upstream.released') releases.push({ upstream: e.upstream, line: e.line, version: e.version });
  });
  const current = history.slice(since);
  const onPinned = (r: { line: string; version: string }) => r.line === pin.line && atOrBefore(r.version, pin.version);

  let consumingAdapter: string | undefined;
  let latestConsumption = -1;
  const ready = facts.conditions.length > 0 && facts.conditions.every((c) => {
    const i = current.findLastIndex((e) => e.type === 'consumed' && e.onPins && e.subject === c.subject && e.condition === c.index);
    if (i < 0) return false;
    const consumption = current[i] as Extract<LifecycleEvent, { type: 'consumed' }>;
    if (i > latestConsumption) {
      latestConsumption = i;
      consumingAdapter = consumption.adapter;
    }
    return c.upstream ? releases.some((r) => r.upstream === c.upstream && onPinned(r)) : consumption.release !== undefined && onPinned(consumption.release);
  });

  const latest = (gate: string, cell: string) => current.findLast((e): e is Extract<LifecycleEvent, { type: 'gate.result' }> => e.type === 'gate.result' && e.onPins && e.gate === gate && e.cell === cell);
  const independentOn = (gate: string, adapter: string | undefined) => {
    let accepted = false;
    for (const e of current) {
      if (e.type === 'gate.result' && e.gate === gate && e.onPins && e.pass && e.independent && (adapter === undefined || e.adapter === adapter)) accepted = true;
      if (e.type === 'gate.acceptance' && e.gate === gate && e.onPins && e.independent && (adapter === undefined || e.adapter === adapter)) accepted = e.accepted;
    }
    return accepted;
  };
  const cellsPass = (cells: RemovalFacts['cells'], adapter: string | undefined, sameAdapter: boolean) => {
    const adapters = new Set<string | undefined>();
    const ok = cells.every((c) => {
      const r = latest(c.gate, c.cell);
      if (!r || !r.pass) return false;
      if (c.hashes && (r.hashes !== 'equal' || !r.adapter)) return false;
      if (c.hashes && adapter !== undefined && r.adapter !== adapter) return false;
      if (c.hashes) adapters.add(r.adapter);
      return !c.independent || independentOn(c.gate, c.hashes ? (adapter ?? r.adapter) : undefined);
    });
    return ok && (!sameAdapter || adapters.size <= 1);
  };
  const required = facts.cells.length + facts.conditions.length > 0;
  const removal = required && (facts.conditions.length === 0 || ready) && cellsPass(facts.cells, facts.conditions.length > 0 ? consumingAdapter : undefined, true);
  const drop = facts.dropCells.length > 0 && cellsPass(facts.dropCells, undefined, true);
  return { ready, removal, drop };
}

const restore = (cell: string) => ({ gate: 'gate.alpha.restore', cell, independent: false, hashes: true });

/** hook.alpha.capture, gap.alpha.ordering and hook.alpha.warmup of spec/fixtures/lifecycle/walk, as their YAML states them. */
export const WALK_FACTS: Record<string, RemovalFacts> = {
  'hook.alpha.capture': {
    engine: 'alpha',
    pin: { version: '1.2.0', line: '1.2' },
    conditions: [{ subject: 'hook.alpha.capture', index: 0, upstream: 'upstream.alpha.101' }],
    cells: [restore('tier=dram'), restore('tier=ssd'), { gate: 'gate.alpha.acceptance', cell: '-', independent: true, hashes: true }],
    dropCells: [],
  },
  'hook.alpha.warmup': {
    engine: 'alpha',
    pin: { version: '1.2.0', line: '1.2' },
    conditions: [{ subject: 'hook.alpha.warmup', index: 0 }],
    cells: [{ gate: 'gate.alpha.workload', cell: '-', independent: false, hashes: true }],
    dropCells: [{ gate: 'gate.alpha.workload', cell: '-', independent: false, hashes: true }],
  },
  'gap.alpha.ordering': {
    engine: 'alpha',
    pin: { version: '1.2.0', line: '1.2' },
    conditions: [{ subject: 'gap.alpha.ordering', index: 0, upstream: 'upstream.alpha.101' }],
    cells: [restore('tier=dram'), restore('tier=ssd')],
    dropCells: [],
  },
};
