import assert from 'node:assert/strict';
import { type AnyMachineSnapshot, initialTransition, transition } from 'xstate';
import type { Contract, EvidenceDraft, EvidenceRecord, GateContract, HookContract, UpstreamContract } from '../../engine/model/index.js';
import { Registry, type ContractEntry } from '../../engine/registry/index.js';
import { LIFECYCLES, type LifecycleEvent, type Refusal, foldLedger, initialFold, worldOf } from '../../engine/lifecycle/index.js';
import { recordEvents } from '../../engine/lifecycle/fold/fold.js';
import { lifecycleTables } from '../../engine/lifecycle/fold/world.js';
import { type RequirementContext, applyResultRun, consumingAdapter, recheckRunStates, replacementReady, resultRunStates } from '../../engine/lifecycle/machines/index.js';
import { digest, sealAll } from './support.js';
import { seeded } from '../support/seeded.js';

/**
 * The fold takes runs of gate results at once (`machines/result-run.ts`). These registries and
 * ledgers are generated from a seed so that runs meet every case the shortcut must get right:
 * contracts whose replacement is ready or not, consumed with or without an adapter, opt-in hooks
 * with drop gates, independent gates, matrices, a gate named twice, pins that move, results
 * that authorize a removal and then block it again. Each fold is compared with xstate stepped
 * record by record, which knows nothing of runs.
 */

const src = { document: 'spec', section: 'result runs' };
const VERSIONS = [{ version: '1.0.0', commit: 'a'.repeat(40) }, { version: '1.1.0', commit: 'b'.repeat(40) }];

function randomRegistry(seed: number): Registry {
  const { random, pick } = seeded(seed);
  const contracts: Contract[] = [
    { kind: 'engine', id: 'engine.eng', title: 'eng', source: src, name: 'eng', distribution: 'eng', role: 'runtime', version: '1.0.0', commit: 'a'.repeat(40), line: '1.0', recordedIn: [], lastRecheck: '2026-10-01' },
    { kind: 'policy', id: 'policy.recheck', title: 'recheck', source: src, policy: { rule: 'recheck', maxAgeDays: 30 } },
  ];
  const upstreams: UpstreamContract[] = Array.from({ length: 3 }, (_, i) => ({ kind: 'upstream', id: `upstream.u${i}`, title: `PR ${i}`, source: src, engine: 'eng', pr: i + 1, state: 'open', releasedIn: [], checked: '2026-10-01', purpose: 'spec' }));
  const gates: GateContract[] = Array.from({ length: 5 }, (_, i) => ({
    kind: 'gate', id: `gate.g${i}`, title: `gate ${i}`, source: src, scenario: { runner: 'external', procedure: 'spec' }, environment: { gpu: false },
    qualifies: 'spec', evidence: { hashes: pick(['engine-and-adapter', 'engine-and-adapter', 'none'] as const), independent: random() < 0.4 },
    ...(i % 2 === 0 ? { matrix: [{ axis: 'tier', values: ['dram', 'ssd'] }] } : {}),
  }));
  const hooks: HookContract[] = Array.from({ length: 8 }, (_, i) => {
    const optIn = random() < 0.3;
    const gateIds = Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(gates).id);
    const conditions = random() < 0.8 ? [{ upstream: pick(upstreams).id, requires: 'released' as const }] : [];
    return {
      kind: 'hook', id: `hook.h${i}`, title: `hook ${i}`, source: src, engine: 'eng', target: `m.C.f${i}`, hookType: 'AROUND',
      protects: { text: 'spec', lifecycles: ['restore'] },
      activation: optIn ? { mode: 'opt-in', switches: [{ env: `H${i}`, value: '1' }] } : { mode: 'always' },
      replacement: { status: 'none', needed: 'spec' },
      removalGate: { upstream: conditions, gates: gateIds, ...(optIn ? { dropAlternative: { gates: [pick(gates).id], text: 'spec' } } : {}) },
      disposition: { state: 'kept', reason: 'spec' },
    } as HookContract;
  });
  const gaps = Array.from({ length: 3 }, (_, i): Contract => ({
    kind: 'gap', id: `gap.p${i}`, title: `gap ${i}`, source: src, engine: 'eng', category: 'interface-gap',
    assertion: { form: 'symbol', file: 'x.py', symbol: 'X', present: true }, consequence: { text: 'spec', rejections: [`rejection.r${i}`], keepsHooks: [] },
    upstreamFix: { status: 'none', needed: 'spec' }, reopening: { upstream: [{ upstream: pick(upstreams).id, requires: 'released' }], gates: [pick(gates).id, pick(gates).id] },
  }));
  const rejections = Array.from({ length: 3 }, (_, i): Contract => ({
    kind: 'rejection', id: `rejection.r${i}`, title: `rejection ${i}`, source: src, engine: 'eng', when: { env: 'X', op: 'present' }, message: 'spec', instead: 'spec', justifiedBy: [`gap.p${i}`],
  }));
  contracts.push(...upstreams, ...gates, ...hooks, ...gaps, ...rejections);
  return registryOf(contracts, `result-run-${seed}`);
}

/** An in-memory registry (the fold reads no positions: an empty document answers every lookup). */
function registryOf(contracts: readonly Contract[], name: string): Registry {
  const entries: ContractEntry[] = contracts.map((c) => ({ contract: c, source: { file: `${c.kind}s/${c.id}.yaml`, path: '', text: '', doc: { contents: null }, lines: null } as never }));
  return new Registry(`/nonexistent/${name}`, entries);
}

function randomLedger(registry: Registry, seed: number, n: number): EvidenceRecord[] {
  const { random, pick } = seeded(seed * 7919);
  const gates = registry.ofKind('gate');
  const subjects = [...registry.ofKind('hook').map((h) => h.id), ...registry.ofKind('gap').map((g) => g.id)];
  let pin = VERSIONS[0]!;
  const drafts: EvidenceDraft[] = [];
  for (let i = 0; i < n; i++) {
    const at = new Date(Date.UTC(2026, 9, 1) + i * 1000).toISOString();
    const actor = pick(['orbitkv-maintainers', 'acme-qa']);
    // acme-qa never authors (no consumption, pin, removal or reopening of its own): its passes are independent.
    // Mostly the pin in force; now and then a result on the other version (off the pins).
    const profile = { engines: { eng: random() < 0.9 ? pin : pick(VERSIONS) }, adapter: digest(pick(['a', 'b'])) };
    const r = random();
    if (r < 0.6) {
      const gate = pick(gates);
      drafts.push({ at, actor, type: 'gate.result', subject: gate.id, profile: random() < 0.05 ? { engines: profile.engines } : profile, data: {
        result: random() < 0.75 ? 'pass' : 'fail', hashes: { before: digest('x'), after: digest(random() < 0.9 ? 'x' : 'y') },
        ...(gate.matrix ? { cell: { tier: pick(gate.matrix[0]!.values) } } : {}), ...(random() < 0.03 ? { where: { engine: 'stand-in' } } : {}),
      } } as EvidenceDraft);
    } else if (r < 0.68) drafts.push({ at, actor: 'orbitkv-maintainers', type: 'adapter.consumed-replacement', subject: pick(subjects), profile: random() < 0.85 ? profile : { engines: profile.engines }, data: { condition: 0, adapterVersion: '1' } });
    else if (r < 0.72) drafts.push({ at, actor, type: 'upstream.released', subject: pick(registry.ofKind('upstream')).id, data: pick([{ line: '1.0', version: '1.0.0' }, { line: '1.1', version: '1.1.0' }]) });
    else if (r < 0.74) drafts.push({ at, actor: 'acme-qa', type: 'gate.acceptance', subject: pick(gates).id, profile, data: { verdict: random() < 0.8 ? 'accepted' : 'rejected' } });
    else if (r < 0.8) {
      pin = pick(VERSIONS);
      drafts.push({ at, actor: 'orbitkv-maintainers', type: 'pin.changed', subject: 'engine.eng', data: { ...pin } });
    } else if (r < 0.86) drafts.push({ at, actor, type: 'recheck', subject: pick(subjects), data: { findings: 'spec', authorizes: 'nothing' } });
    else if (r < 0.92) drafts.push({ at, actor: 'orbitkv-maintainers', type: pick(['hook.removed', 'optimization.dropped'] as const), subject: pick(registry.ofKind('hook')).id, profile, data: { adapterVersion: '2' } });
    else if (r < 0.95) drafts.push({ at, actor: 'orbitkv-maintainers', type: 'support.expanded', subject: pick(registry.ofKind('gap')).id, profile, data: { adapterVersion: '2' } } as EvidenceDraft);
    else drafts.push({ at, actor, type: 'hook.reinstated', subject: pick(registry.ofKind('hook')).id, data: { reason: 'spec' } } as EvidenceDraft);
  }
  return sealAll(drafts).records;
}

/** The definition: each record's events handed to xstate's pure transition() as they come. */
/**
 * Steps the 10 seeded registries' ledgers (300 records each) through xstate record by record and
 * hands each event to `check` with the contract's snapshot before and after it.
 */
function stepSeededLedgers(check: (kind: string, before: AnyMachineSnapshot, after: AnyMachineSnapshot, event: LifecycleEvent, record: EvidenceRecord, id: string) => void): void {
  for (let seed = 1; seed <= 10; seed++) {
    const registry = randomRegistry(seed);
    const records = randomLedger(registry, seed, 300);
    const world = worldOf(registry);
    const facts = initialFold(registry);
    const authors = new Set<string>();
    const snaps = world.order.map((t) => initialTransition(LIFECYCLES[t.lifecycle].machine, t.initial)[0]);
    for (const record of records) {
      recordEvents(world, facts, authors, record, (slot, event) => {
        const before = snaps[slot]!;
        const kind = world.order[slot]!.lifecycle;
        const [after] = transition(LIFECYCLES[kind].machine, before, event);
        snaps[slot] = after;
        check(kind, before, after, event, record, world.order[slot]!.id);
      });
    }
  }
}

/** Contracts that take no runs (a drop path, no conditions, consumption without an adapter) are stepped by the table. */
function takesRuns(ctx: RequirementContext): boolean {
  return !(ctx.spec.conditions.length === 0 || (ctx.spec.optIn && ctx.spec.dropCells.length > 0) || (replacementReady(ctx) && consumingAdapter(ctx) === undefined));
}

function reference(registry: Registry, records: readonly EvidenceRecord[]) {
  const world = worldOf(registry);
  const facts = initialFold(registry);
  const authors = new Set<string>();
  const snaps = world.order.map((t) => initialTransition(LIFECYCLES[t.lifecycle].machine, t.initial)[0]);
  const since: (string | null)[] = world.order.map(() => null);
  const refusals: Refusal[] = [];
  const visited = new Set<string>();
  for (const record of records) {
    recordEvents(world, facts, authors, record, (slot, event) => {
      const before = snaps[slot]!;
      const [after] = transition(LIFECYCLES[world.order[slot]!.lifecycle].machine, before, event);
      snaps[slot] = after;
      if (after.value !== before.value) {
        since[slot] = record.at;
        visited.add(`${world.order[slot]!.lifecycle}:${String(before.value)}->${String(after.value)}:${event.type}`);
      }
      const refused = (after.context as { refused?: unknown[] }).refused;
      if (refused && refused !== (before.context as { refused?: unknown[] }).refused) refusals.push({ seq: record.seq, subject: world.order[slot]!.id, type: record.type, state: before.value as string });
    });
  }
  refusals.sort((x, y) => x.seq - y.seq || x.subject.localeCompare(y.subject));
  const contracts = Object.fromEntries(world.order.map((t, i) => [t.id, { value: snaps[i]!.value, context: snaps[i]!.context, since: since[i] }]));
  return { contracts, refusals, pins: facts.pins, visited };
}

describe('lifecycle fold: runs of gate results', function () {
  this.timeout(240_000);
  it('a fold taking runs of gate results equals xstate stepped record by record, on seeded random registries and ledgers', () => {
    const visited = new Set<string>();
    for (let seed = 1; seed <= 10; seed++) {
      const registry = randomRegistry(seed);
      const records = randomLedger(registry, seed, 300);
      const expected = reference(registry, records);
      for (const c of expected.visited) visited.add(c);
      for (const batch of [1, undefined]) {
        const fold = foldLedger(registry, records, { trace: false, ...(batch !== undefined ? { batch } : {}) });
        const got = Object.fromEntries(Object.entries(fold.contracts).map(([id, c]) => [id, { value: c.value, context: c.context, since: c.since }]));
        assert.deepStrictEqual(got, expected.contracts, `seed ${seed}, batch ${batch ?? 'default'}`);
        assert.deepStrictEqual(fold.refusals, expected.refusals, `seed ${seed}, batch ${batch ?? 'default'}: refusals`);
      }
    }
    // Not vacuous: gate results authorized removals and reopenings and took them back, in runs' states.
    for (const edge of ['hook:replacement-consumed->removable:gate.result', 'hook:removable->replacement-consumed:gate.result', 'restriction:replacement-consumed->reopenable:gate.result', 'hook:kept->replacement-consumed:consumed']) {
      assert.ok(visited.has(edge), `never took ${edge}: ${[...visited].sort().join(', ')}`);
    }
  });

  it('an independent pass that unblocks the last cells inside a run moves the hook there, as stepping does', () => {
    const [engine, policy, upstream] = randomRegistry(1).contracts.filter((c) => c.id === 'engine.eng' || c.id === 'policy.recheck' || c.id === 'upstream.u0');
    const gate: GateContract = { kind: 'gate', id: 'gate.g', title: 'g', source: src, scenario: { runner: 'external', procedure: 'spec' }, environment: { gpu: false }, qualifies: 'spec', evidence: { hashes: 'engine-and-adapter', independent: true }, matrix: [{ axis: 'tier', values: ['dram', 'ssd'] }] };
    const hook = { kind: 'hook', id: 'hook.h', title: 'h', source: src, engine: 'eng', target: 'm.C.f', hookType: 'AROUND', protects: { text: 'spec', lifecycles: ['restore'] }, activation: { mode: 'always' }, replacement: { status: 'none', needed: 'spec' }, removalGate: { upstream: [{ upstream: 'upstream.u0', requires: 'released' }], gates: ['gate.g'] }, disposition: { state: 'kept', reason: 'spec' } } as HookContract;
    const registry = registryOf([engine!, policy!, upstream!, gate, hook], 'result-run-directed');
    const profile = { engines: { eng: VERSIONS[0]! }, adapter: digest('a') };
    const hashes = { before: digest('x'), after: digest('x') };
    const at = (i: number) => new Date(Date.UTC(2026, 9, 1) + i * 1000).toISOString();
    const result = (i: number, actor: string, tier: string): EvidenceDraft => ({ at: at(i), actor, type: 'gate.result', subject: 'gate.g', profile, data: { result: 'pass', hashes, cell: { tier } } });
    const records = sealAll([
      { at: at(0), actor: 'orbitkv-maintainers', type: 'upstream.released', subject: 'upstream.u0', data: { line: '1.0', version: '1.0.0' } },
      { at: at(1), actor: 'orbitkv-maintainers', type: 'adapter.consumed-replacement', subject: 'hook.h', profile, data: { condition: 0, adapterVersion: '1' } },
      // Both cells pass, by an author: independent acceptance missing. Then one independent pass covers both cells of the gate.
      result(2, 'orbitkv-maintainers', 'dram'), result(3, 'orbitkv-maintainers', 'ssd'), result(4, 'acme-qa', 'dram'), result(5, 'orbitkv-maintainers', 'ssd'),
    ]).records;
    const expected = reference(registry, records);
    assert.equal(expected.contracts['hook.h']!.value, 'removable');
    assert.equal(expected.contracts['hook.h']!.since, at(4));
    const fold = foldLedger(registry, records, { trace: false });
    assert.deepStrictEqual({ value: fold.contracts['hook.h']!.value, since: fold.contracts['hook.h']!.since, context: fold.contracts['hook.h']!.context }, { value: 'removable', since: at(4), context: expected.contracts['hook.h']!.context });
  });

  it('a run stops before the result that would move the contract, and takes every result that does not', () => {
    const tables = lifecycleTables();
    assert.deepStrictEqual([...resultRunStates(tables.hook)].sort(), ['kept', 'removable', 'replacement-consumed']);
    assert.deepStrictEqual([...resultRunStates(tables.restriction)].sort(), ['reopenable', 'replacement-consumed', 'restricted']);
    assert.deepStrictEqual([...resultRunStates(tables.gate)], []);
    let stopped = 0;
    let whole = 0;
    stepSeededLedgers((kind, before, after, event, record, id) => {
          if (event.type !== 'gate.result' || (kind !== 'hook' && kind !== 'restriction') || !resultRunStates(tables[kind]).has(before.value as string)) return;
          // A run of this one result: taken exactly when xstate leaves the contract where it was.
          const ctx = before.context as RequirementContext;
          if (!takesRuns(ctx)) return;
          const run = applyResultRun(ctx, [event], Int32Array.of(0), 0, 1);
          if (run.end === 0) {
            stopped++;
            assert.notEqual(after.value, before.value, `seq ${record.seq}: the run refused a result that leaves ${id} in ${String(before.value)}`);
          } else {
            whole++;
            assert.equal(after.value, before.value, `seq ${record.seq}: the run took a result that moves ${id} to ${String(after.value)}`);
            assert.deepStrictEqual({ ...before.context, ...run.update }, after.context, `seq ${record.seq}: ${id}`);
          }
    });
    assert.ok(stopped > 10 && whole > 300, `runs stopped ${stopped} times and took ${whole} results`);
  });

  it('a run takes the rechecks between its results, as stepping each leaves the contract where it was with the time noted', () => {
    const tables = lifecycleTables();
    // Every run state of the hook and restriction tables only notes a recheck.
    assert.deepStrictEqual([...recheckRunStates(tables.hook)].sort(), [...resultRunStates(tables.hook)].sort());
    assert.deepStrictEqual([...recheckRunStates(tables.restriction)].sort(), [...resultRunStates(tables.restriction)].sort());
    let taken = 0;
    let across = 0;
    stepSeededLedgers((kind, before, after, event, record, id) => {
          if ((kind !== 'hook' && kind !== 'restriction') || !recheckRunStates(tables[kind]).has(before.value as string)) return;
          const ctx = before.context as RequirementContext;
          if (!takesRuns(ctx)) return;
          if (event.type === 'recheck') {
            // A recheck on its own: taken, the state kept, the context as xstate's.
            const run = applyResultRun(ctx, [event], Int32Array.of(0), 0, 1);
            assert.equal(run.end, 1, `seq ${record.seq}: the run refused a recheck`);
            assert.equal(after.value, before.value);
            assert.deepStrictEqual({ ...before.context, ...run.update }, after.context, `seq ${record.seq}: ${id}`);
            taken++;
          }
          // A result, a recheck, the same result: one run takes all three exactly when stepping leaves the contract put.
          if (event.type === 'gate.result') {
            const recheck = { type: 'recheck' as const, seq: event.seq, at: '2099-01-01T00:00:00Z' };
            const run = applyResultRun(ctx, [event, recheck, event], Int32Array.of(0, 1, 2), 0, 3);
            if (after.value === before.value) {
              assert.equal(run.end, 3, `seq ${record.seq}: the run stopped at ${run.end}`);
              assert.deepStrictEqual({ ...after.context, ...run.update }, { ...after.context, lastRecheck: recheck.at }, `seq ${record.seq}: ${id}`);
              across++;
            } else assert.equal(run.end, 0);
          }
    });
    assert.ok(taken > 20 && across > 300, `took ${taken} rechecks alone and ${across} runs across one`);
  });
});
