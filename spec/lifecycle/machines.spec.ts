import assert from 'node:assert/strict';
import { getAdjacencyMap, getShortestPaths } from '@xstate/graph';
import type { AnyStateMachine } from 'xstate';
import { loadRegistry } from '../../engine/registry/index.js';
import {
  type Lifecycle, type LifecycleEvent, type RequirementContext,
  type GateContext, cellBlocker, gateCellBlocker,
  compileTable, dropMet, gateLifecycle, hookLifecycle, regressionCleared, removalMet, restrictionLifecycle,
  tableAdvance, tableStart, tableStep, upstreamLifecycle, worldOf, xstateFold, type Cursor,
} from '../../engine/lifecycle/index.js';
import { WALK, digest } from './support.js';
import { WALK_FACTS, removalVerdict } from './removal-rules.js';

const { registry } = loadRegistry(WALK);
const world = worldOf(registry);
const input = (id: string) => world.tracked.get(id)!.initial;

const A = digest('adapter A');
const B = digest('adapter B');
const alpha = ['alpha'];
const result = (gate: string, cell: string, pass: boolean, over: { adapter?: string; hashes?: string } = {}): LifecycleEvent => {
  const fields = { pass, adapter: B, hashes: 'equal', engines: alpha, independent: false, seq: 1, actor: 'author', ...over };
  const { engines, independent, seq, actor, hashes, adapter } = fields;
  return { type: 'gate.result', gate, cell, key: `${gate}|${cell}`, onPins: true, result: { pass, hashes, engines, independent, seq, actor, adapter }, evidence: { engines, seq, adapter }, ...fields } as LifecycleEvent;
};
const PIN_UP: LifecycleEvent = { type: 'pin', seq: 1, engine: 'alpha', version: '1.3.0', line: '1.3' };
const PIN_BACK: LifecycleEvent = { type: 'pin', seq: 1, engine: 'alpha', version: '1.2.0', line: '1.2' };
const RELEASED: LifecycleEvent = { type: 'upstream.released', seq: 1, upstream: 'upstream.alpha.101', line: '1.3', version: '1.3.0' };
const RECHECK: LifecycleEvent = { type: 'recheck', seq: 1, at: '2026-12-01T00:00:00Z' };
const ACCEPTED: LifecycleEvent = { type: 'gate.acceptance', seq: 1, gate: 'gate.alpha.acceptance', accepted: true, adapter: B, engines: alpha, onPins: true, independent: true, evidence: { engines: alpha, seq: 1, adapter: B } };
const consumed = (subject: string): LifecycleEvent => ({ type: 'consumed', seq: 1, subject, condition: 0, adapter: B, engines: alpha, onPins: true });

/** The alphabet of the capture hook: realistic evidence plus every shortcut. */
const HOOK_EVENTS: LifecycleEvent[] = [
  PIN_UP, PIN_BACK, RELEASED, consumed('hook.alpha.capture'),
  result('gate.alpha.restore', 'tier=dram', true), result('gate.alpha.restore', 'tier=ssd', true), result('gate.alpha.restore', 'tier=dram', false),
  result('gate.alpha.restore', 'tier=dram', true, { adapter: A }), result('gate.alpha.restore', 'tier=ssd', true, { hashes: 'kept' }), result('gate.alpha.restore', 'tier=ssd', true, { hashes: 'differ' }),
  result('gate.alpha.acceptance', '-', true), ACCEPTED, RECHECK,
  { type: 'removed', seq: 1, onPins: true }, { type: 'dropped', seq: 1, onPins: true }, { type: 'reinstated', seq: 1 },
];
const WARMUP_EVENTS: LifecycleEvent[] = [
  PIN_UP, result('gate.alpha.workload', '-', true), result('gate.alpha.workload', '-', false), result('gate.alpha.workload', '-', true, { hashes: 'differ' }),
  RECHECK, { type: 'removed', seq: 1, onPins: true }, { type: 'dropped', seq: 1, onPins: true }, { type: 'reinstated', seq: 1 },
];
const GAP_EVENTS: LifecycleEvent[] = [
  PIN_UP, RELEASED, consumed('gap.alpha.ordering'), result('gate.alpha.restore', 'tier=dram', true), result('gate.alpha.restore', 'tier=ssd', true),
  result('gate.alpha.restore', 'tier=ssd', false), RECHECK, { type: 'verify', seq: 1, at: '2026-12-01T00:00:00Z', result: 'no-longer-holds' }, { type: 'expanded', seq: 1, onPins: true },
];

type Snap = { value: unknown; context: RequirementContext };
/** A state's identity for the traversal: value and facts (the spec and the refusal log are left out, so the space is finite). */
const serialize = (s: unknown) => {
  const { value, context } = s as Snap;
  const { spec: _spec, refused: _refused, ...facts } = context as RequirementContext & Record<string, unknown>;
  return JSON.stringify({ value, facts });
};
const adjacency = (machine: AnyStateMachine, id: string, events: LifecycleEvent[]) =>
  Object.values(getAdjacencyMap(machine, { input: input(id), events, serializeState: serialize as never }));
const edges = (machine: AnyStateMachine, id: string, events: LifecycleEvent[]) =>
  adjacency(machine, id, events).flatMap((v) => (Object.values(v.transitions) as { event: unknown; state: unknown }[]).map((t) => ({ from: v.state as unknown as Snap, event: t.event as LifecycleEvent, to: t.state as unknown as Snap })));

describe('lifecycle machines (model-based, @xstate/graph)', () => {
  const hookEdges = edges(hookLifecycle.machine, 'hook.alpha.capture', HOOK_EVENTS);
  const warmEdges = edges(hookLifecycle.machine, 'hook.alpha.warmup', WARMUP_EVENTS);

  it('every hook state is reachable', () => {
    const reached = new Set([...hookEdges, ...warmEdges].flatMap((e) => [e.from.value, e.to.value]));
    assert.deepEqual([...reached].sort(), [...hookLifecycle.states].sort());
  });

  it('every gap/rejection, gate and upstream state is reachable', () => {
    const reach = (l: Lifecycle<object>, id: string, events: LifecycleEvent[]) => new Set(getShortestPaths(l.machine, { input: input(id), events, serializeState: serialize as never }).map((p) => p.state.value as string));
    assert.deepEqual([...reach(restrictionLifecycle as unknown as Lifecycle<object>, 'gap.alpha.ordering', GAP_EVENTS)].sort(), [...restrictionLifecycle.states].sort());
    const gateEvents: LifecycleEvent[] = [result('gate.alpha.acceptance', '-', true), result('gate.alpha.acceptance', '-', false), ACCEPTED, PIN_UP];
    assert.deepEqual([...reach(gateLifecycle as unknown as Lifecycle<object>, 'gate.alpha.acceptance', gateEvents)].sort(), [...gateLifecycle.states].sort());
    const u = (state: 'open' | 'merged' | 'closed'): LifecycleEvent => ({ type: 'upstream.state', seq: 1, upstream: 'upstream.alpha.101', state });
    assert.deepEqual([...reach(upstreamLifecycle as unknown as Lifecycle<object>, 'upstream.alpha.101', [u('open'), u('merged'), u('closed'), RELEASED])].sort(), [...upstreamLifecycle.states].sort());
  });

  /** Every edge of a machine, with a history of events that reaches its source state (a shortest path from @xstate/graph). */
  const edgesWithHistory = (machine: AnyStateMachine, id: string, events: LifecycleEvent[]) => {
    const history = new Map<string, LifecycleEvent[]>();
    for (const p of getShortestPaths(machine, { input: input(id), events, serializeState: serialize as never })) {
      history.set(serialize(p.state), p.steps.map((s) => s.event as unknown as LifecycleEvent).filter((e) => !e.type.startsWith('xstate.')));
    }
    return edges(machine, id, events).map((e) => ({ ...e, history: history.get(serialize(e.from))! }));
  };

  // The rules as the README states them (spec/lifecycle/removal-rules.ts), not the guards: every edge agrees.
  for (const [machine, id, events, open, left] of [
    [hookLifecycle.machine, 'hook.alpha.capture', HOOK_EVENTS, ['kept', 'replacement-consumed'], 'removed'],
    [hookLifecycle.machine, 'hook.alpha.warmup', WARMUP_EVENTS, ['kept', 'replacement-consumed'], 'removed'],
    [restrictionLifecycle.machine, 'gap.alpha.ordering', GAP_EVENTS, ['restricted', 'replacement-consumed'], 'reopened'],
  ] as const) {
    it(`${id}: no edge reaches ${left === 'removed' ? 'removable or removed' : 'reopenable or reopened'} unless the rules allow it, and none keeps it open when they do`, () => {
      const facts = WALK_FACTS[id]!;
      const all = edgesWithHistory(machine, id, [...events]);
      assert.ok(all.length > 20 && all.every((e) => e.history !== undefined));
      const ready = left === 'removed' ? 'removable' : 'reopenable';
      let reachedReady = 0;
      for (const e of all) {
        const before = removalVerdict(facts, e.history);
        const after = removalVerdict(facts, [...e.history, e.event]);
        const edge = `${e.from.value} --${e.event.type}${e.event.type === 'gate.result' ? ` ${e.event.gate}|${e.event.cell} ${e.event.pass ? 'pass' : 'fail'} ${e.event.hashes}` : ''}--> ${e.to.value} after [${e.history.map((h) => h.type).join(', ')}]`;
        if (e.to.value === ready) {
          reachedReady++;
          assert.ok(after.removal || after.drop, `reached ${ready} against the rules: ${edge}`);
        }
        if ((open as readonly string[]).includes(e.to.value as string)) assert.ok(!after.removal && !after.drop, `kept open though the rules allow leaving: ${edge}`);
        if (e.to.value === 'replacement-consumed') assert.ok(after.ready, `replacement-consumed without a released, consumed replacement: ${edge}`);
        if (e.to.value === 'kept' || e.to.value === 'restricted') assert.ok(!after.ready || e.event.type === 'reinstated', `kept though the replacement is ready: ${edge}`);
        if (e.to.value === left && e.from.value !== left && e.from.value !== 'regressed') {
          const byRecord = left === 'removed' ? (e.event.type === 'removed' && before.removal) || (e.event.type === 'dropped' && before.drop) : e.event.type === 'expanded' && before.removal;
          assert.ok(e.from.value === ready && byRecord, `left against the rules: ${edge}`);
        }
      }
      assert.ok(reachedReady > 0, `the alphabet reaches ${ready}`);
    });
  }

  it('one rule for "a gate cell passed": the gate and the hook that needs the cell agree on every result', () => {
    const gateTable = compileTable(gateLifecycle);
    const hookTable = compileTable(hookLifecycle);
    const cell = 'tier=dram';
    for (const pass of [true, false]) {
      for (const hashes of ['equal', 'differ', 'kept', 'missing']) {
        for (const adapter of [B, undefined]) {
          const event = result('gate.alpha.restore', cell, pass, { hashes, ...(adapter ? { adapter } : { adapter: undefined as unknown as string }) });
          const gate = tableStep(gateTable, tableStart(gateTable, input('gate.alpha.restore') as GateContext), event).context as GateContext;
          const hook = tableStep(hookTable, tableStart(hookTable, input('hook.alpha.capture') as RequirementContext), event).context as RequirementContext;
          const spec = hook.spec.cells.find((c) => c.key === `gate.alpha.restore|${cell}`)!;
          const byGate = gateCellBlocker(gate, cell);
          const byHook = cellBlocker(hook, spec, undefined);
          assert.equal(byGate, byHook, `${pass ? 'pass' : 'fail'}, hashes ${hashes}, adapter ${adapter ? 'given' : 'none'}`);
          assert.equal(byGate === undefined, pass && hashes === 'equal' && adapter !== undefined);
        }
      }
    }
  });

  it('removal records are refused (no state change) anywhere but removable', () => {
    for (const e of hookEdges) {
      if ((e.event.type === 'removed' || e.event.type === 'dropped') && e.from.value !== 'removable') assert.equal(e.to.value, e.from.value);
    }
  });

  it('a recheck, or a verifier finding, records and never moves a contract', () => {
    const gapEdges = edges(restrictionLifecycle.machine, 'gap.alpha.ordering', GAP_EVENTS);
    for (const e of [...hookEdges, ...warmEdges, ...gapEdges]) if (e.event.type === 'recheck' || e.event.type === 'verify') assert.equal(e.to.value, e.from.value);
  });

  it('a pin change sends a removable hook back (its passes do not transfer)', () => {
    const fromRemovable = hookEdges.filter((e) => e.from.value === 'removable' && e.event.type === 'pin');
    assert.ok(fromRemovable.length > 0);
    for (const e of fromRemovable) assert.equal(e.to.value, 'kept');
  });

  it('the regression path exists: removed → regressed on a failing removal cell, and out again', () => {
    const paths = getShortestPaths(hookLifecycle.machine, { input: input('hook.alpha.capture'), events: HOOK_EVENTS, serializeState: serialize as never, toState: (s) => s.value === 'regressed' });
    assert.ok(paths.length > 0);
    const values = paths[0]!.steps.map((s) => s.state.value);
    assert.deepEqual(values.slice(-2), ['removed', 'regressed']);
    assert.ok(hookEdges.some((e) => e.from.value === 'regressed' && e.to.value === 'removed'));
    assert.ok(hookEdges.some((e) => e.from.value === 'regressed' && e.event.type === 'reinstated' && e.to.value === 'kept'));
  });

  it('a hook the contract declares removed starts removed', () => {
    const table = compileTable(hookLifecycle);
    const { registry: minimal } = loadRegistry(new URL('../fixtures/registry/minimal', import.meta.url).pathname);
    const declared = worldOf(minimal).tracked.get('hook.alpha.removed')!.initial as RequirementContext;
    assert.equal(tableStart(table, declared).value, 'removed');
  });
});

/** A seeded generator, so a failure replays. */
function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('lifecycle transition tables', () => {
  const cases: [string, Lifecycle<object>, string, LifecycleEvent[]][] = [
    ['hook', hookLifecycle as unknown as Lifecycle<object>, 'hook.alpha.capture', HOOK_EVENTS],
    ['opt-in hook', hookLifecycle as unknown as Lifecycle<object>, 'hook.alpha.warmup', WARMUP_EVENTS],
    ['gap', restrictionLifecycle as unknown as Lifecycle<object>, 'gap.alpha.ordering', GAP_EVENTS],
    ['rejection', restrictionLifecycle as unknown as Lifecycle<object>, 'rejection.alpha.v2', GAP_EVENTS],
    ['gate', gateLifecycle as unknown as Lifecycle<object>, 'gate.alpha.acceptance', [result('gate.alpha.acceptance', '-', true), result('gate.alpha.acceptance', '-', false), ACCEPTED, PIN_UP, RECHECK]],
    ['upstream', upstreamLifecycle as unknown as Lifecycle<object>, 'upstream.alpha.101', [RELEASED, RECHECK, { type: 'upstream.state', seq: 1, upstream: 'upstream.alpha.101', state: 'merged' }]],
  ];
  for (const [name, lifecycle, id, alphabet] of cases) {
    it(`${name}: folding with the table equals xstate transition() on random evidence`, () => {
      const table = compileTable(lifecycle);
      const random = mulberry32(name.length * 7919);
      for (let run = 0; run < 150; run++) {
        const events = Array.from({ length: 1 + Math.floor(random() * 30) }, (_, i) => ({ ...alphabet[Math.floor(random() * alphabet.length)]!, seq: i + 1 }));
        let snap = tableStart(table, input(id));
        for (const e of events) snap = tableStep(table, snap, e);
        const reference = xstateFold(lifecycle, input(id), events);
        assert.deepStrictEqual({ value: snap.value, context: snap.context }, reference, `run ${run}: ${events.map((e) => e.type).join(', ')}`);
        // The fold's cursor (one context copy per run of steps, updates written into it) agrees too,
        // cut into runs anywhere, and never touches the context it started from.
        const start = tableStart(table, input(id));
        const frozen = JSON.stringify(start.context);
        let cursor: Cursor<object> = { value: start.value, context: start.context, owned: false, changed: false };
        events.forEach((e, i) => {
          if (i % (1 + (run % 5)) === 0) cursor = { value: cursor.value, context: cursor.context, owned: false, changed: false };
          tableAdvance(table, cursor, e);
        });
        assert.deepStrictEqual({ value: cursor.value, context: cursor.context }, reference, `cursor, run ${run}`);
        assert.equal(JSON.stringify(start.context), frozen, 'the starting context is not mutated');
      }
    });
  }
});
