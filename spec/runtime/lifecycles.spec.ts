import assert from 'node:assert/strict';
import { getSimplePaths } from '@xstate/graph';
import { createActor, setup } from 'xstate';
import type { PersistOutcome, SaveOutcome } from '../../engine/runtime/catalog/index.js';
import { TICKET_FINAL, lookupTicketMachine, restoreMachine, saveMachine, type RestoreJob, type SaveInput, type TicketEffects, type TicketEvent } from '../../engine/runtime/lifecycles/index.js';

const effects: TicketEffects = { settle: () => undefined, releaseAll: () => undefined };
const input = { effects, leaseMs: 60_000 };
const OPEN: TicketEvent = { type: 'OPEN', deadlineMs: 60_000 };
const EVENTS: TicketEvent[] = [OPEN, { ...OPEN, agreed: 0 }, { ...OPEN, agreed: 3 }, { type: 'AGREED', boundary: 0 }, { type: 'AGREED', boundary: 3 }, { type: 'DEFER' }, { type: 'CANCEL' }, { type: 'RELEASE' }, { type: 'CONSUME' }, { type: 'CONSUMED' }];
const ENDED = TICKET_FINAL as readonly string[];
/** The boundary the event that made a ticket ready agreed on. */
const agreedBy = (e: TicketEvent) => (e.type === 'OPEN' ? e.agreed : e.type === 'AGREED' ? e.boundary : undefined);

describe('runtime/lifecycles: the lookup ticket (model-based, @xstate/graph)', () => {
  // One ticket's life: paths from idle that open once (a second OPEN starts the next ticket, checked below).
  const paths = getSimplePaths(lookupTicketMachine, { events: EVENTS, input, serializeState: ((s: { value: unknown }) => String(s.value)) as never }).filter(
    (p) => p.steps.filter((s) => s.event.type === 'OPEN').length <= 1,
  );

  it('reaches every state; only an agreed boundary of 0 is a miss (pending is never one)', () => {
    const reached = new Set(paths.map((p) => p.state.value as string));
    // `expired` is entered by the lease timer only (covered against a real Manager in manager.spec.ts).
    assert.deepEqual([...reached].sort(), ['idle', 'pending', 'ready', 'restoring', ...TICKET_FINAL.filter((s) => s !== 'expired')].sort());
    for (const p of paths) {
      if (p.state.value !== 'miss') continue;
      const into = p.steps.at(-1)!.event as TicketEvent;
      assert.ok((into.type === 'AGREED' && into.boundary === 0) || (into.type === 'OPEN' && into.agreed === 0), JSON.stringify(into));
    }
    // An OPEN with its boundary agreed already skips pending.
    assert.ok(paths.some((p) => p.steps.length === 2 && p.state.value === 'ready' && p.steps[1]!.event.type === 'OPEN'));
  });

  it('on every path a ticket is settled once on ready with the boundary agreed, and its leases released exactly once, on reaching an ended state', () => {
    for (const p of paths) {
      const calls = { settled: [] as number[], releaseAll: 0 };
      const counted: TicketEffects = { settle: (b) => void calls.settled.push(b), releaseAll: () => void calls.releaseAll++ };
      const actor = createActor(lookupTicketMachine, { input: { effects: counted, leaseMs: 60_000 } }).start();
      let agreed: number | undefined;
      for (const step of p.steps) {
        if ((step.event.type as string) === 'xstate.init') continue;
        const before = actor.getSnapshot().value;
        actor.send(step.event as TicketEvent);
        if (before !== 'ready' && actor.getSnapshot().value === 'ready') agreed = agreedBy(step.event as TicketEvent);
      }
      const snap = actor.getSnapshot();
      const ended = ENDED.includes(snap.value as string);
      const path = p.steps.map((s) => s.event.type).join(' > ');
      assert.equal(calls.releaseAll, ended ? 1 : 0, path);
      const wasReady = p.steps.some((s) => s.state.value === 'ready');
      assert.deepEqual(calls.settled, wasReady ? [3] : [], path);
      if (wasReady) assert.equal(agreed, 3, path);
      if (snap.value === 'consumed') assert.ok(p.steps.some((s) => s.state.value === 'restoring'), 'consumed only through a restore');
      actor.stop();
    }
  });

  it('an actor serves tickets in turn: OPEN starts a new one only once the last has ended, each settled with its own boundary', () => {
    const log: string[] = [];
    const actor = createActor(lookupTicketMachine, { input: { effects: { settle: (b) => void log.push(`settle:${b}`), releaseAll: () => void log.push('release') }, leaseMs: 60_000 } }).start();
    actor.send(OPEN);
    actor.send({ type: 'AGREED', boundary: 3 });
    // A ticket that has not ended ignores an OPEN: a second ticket never takes over its leases.
    actor.send({ ...OPEN, agreed: 5 });
    assert.equal(actor.getSnapshot().value, 'ready');
    actor.send({ type: 'RELEASE' });
    for (const state of ENDED) assert.ok(lookupTicketMachine.states[state]!.on['OPEN'], `${state} takes the next OPEN`);
    actor.send({ ...OPEN, agreed: 2 });
    actor.send({ type: 'RELEASE' });
    actor.send(OPEN);
    assert.equal(actor.getSnapshot().value, 'pending');
    actor.send({ type: 'AGREED', boundary: 0 });
    assert.equal(actor.getSnapshot().value, 'miss');
    assert.deepEqual(log, ['settle:3', 'release', 'settle:2', 'release', 'release']);
    actor.stop();
  });
});

/** A promise the spec settles when a model step says so. */
interface Deferred<T> {
  promise: Promise<T>;
  resolve(v: T): void;
  reject(e: unknown): void;
  settled: boolean;
}
function deferred<T>(): Deferred<T> {
  const d = { settled: false } as Deferred<T>;
  d.promise = new Promise<T>((res, rej) => {
    d.resolve = (v) => ((d.settled = true), res(v));
    d.reject = (e) => ((d.settled = true), rej(e));
  });
  return d;
}
const flush = async () => {
  for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
};

/**
 * The restore protocol as a model: two windows of two blocks; the first window is read, then
 * each step copies one window while reading the next. Events say how a step's I/O settles. The
 * real restore machine is driven along every simple path of the model, its I/O promises settled
 * as the path says, and must be in the state the model is in, with its invariants holding.
 */
const restoreModel = setup({ types: { events: {} as { type: 'READ_OK' | 'READ_REJECT' | 'STEP_OK' | 'STEP_ABSENT' | 'STEP_REJECT' | 'CANCEL' | 'SETTLE' } } }).createMachine({
  id: 'restoreModel',
  initial: 'reading',
  states: {
    reading: { on: { READ_OK: 'copying0', READ_REJECT: 'failed', CANCEL: 'draining' } },
    copying0: { on: { STEP_OK: 'copying1', STEP_ABSENT: 'copying1Short', STEP_REJECT: 'failed', CANCEL: 'draining' } },
    copying1: { on: { STEP_OK: 'done', STEP_ABSENT: 'failed', STEP_REJECT: 'failed', CANCEL: 'draining' } },
    copying1Short: { on: { STEP_OK: 'failed', STEP_REJECT: 'failed', CANCEL: 'draining' } },
    draining: { on: { SETTLE: 'cancelled' } },
    done: { type: 'final' },
    failed: { type: 'final' },
    cancelled: { type: 'final' },
  },
});

describe('runtime/lifecycles: restore and save, model-based (@xstate/graph) against the real machines', () => {
  it('restore: on every path of the model the machine agrees, drains before cancelled, and reports each block', async () => {
    const paths = getSimplePaths(restoreModel, { events: ['READ_OK', 'READ_REJECT', 'STEP_OK', 'STEP_ABSENT', 'STEP_REJECT', 'CANCEL', 'SETTLE'].map((type) => ({ type }) as never) });
    assert.ok(paths.length >= 10, `${paths.length} paths`);
    const finals = new Set<string>();
    for (const p of paths) {
      const reads: Deferred<(Buffer | string)[]>[] = [];
      const copies: Deferred<string[]>[] = [];
      let cancelled = false;
      const job: RestoreJob = {
        blocks: 4,
        window: 2,
        read: () => {
          const d = deferred<(Buffer | string)[]>();
          reads.push(d);
          return d.promise;
        },
        copy: (_from, slots) => {
          const d = deferred<string[]>();
          copies.push(d);
          void slots;
          return d.promise;
        },
        cancel: () => void (cancelled = true),
      };
      const actor = createActor(restoreMachine, { input: { job } }).start();
      const pending = () => [...reads, ...copies].filter((d) => !d.settled);
      const path = p.steps.map((s) => s.event.type).join(' > ');
      for (const step of p.steps) {
        const e = step.event.type as string;
        if (e === 'xstate.init') continue;
        const open = pending();
        if (e === 'READ_OK') open.forEach((d) => (d as Deferred<(Buffer | string)[]>).resolve([Buffer.alloc(1), Buffer.alloc(1)]));
        if (e === 'READ_REJECT' || e === 'STEP_REJECT') {
          // One of the step's promises fails; the other lands.
          open[0]!.reject(new Error('EIO'));
          open.slice(1).forEach((d) => (reads.includes(d as never) ? (d as Deferred<(Buffer | string)[]>).resolve([Buffer.alloc(1), Buffer.alloc(1)]) : (d as Deferred<string[]>).resolve(['restored', 'restored'])));
        }
        if (e === 'STEP_OK' || e === 'STEP_ABSENT') {
          for (const d of open) {
            if (copies.includes(d as never)) (d as Deferred<string[]>).resolve(e === 'STEP_ABSENT' ? ['restored', 'absent'] : ['restored', 'restored']);
            else (d as Deferred<(Buffer | string)[]>).resolve([Buffer.alloc(1), Buffer.alloc(1)]);
          }
        }
        if (e === 'CANCEL') actor.send({ type: 'CANCEL' });
        if (e === 'SETTLE') open.forEach((d) => (reads.includes(d as never) ? (d as Deferred<(Buffer | string)[]>).resolve([]) : (d as Deferred<string[]>).resolve([])));
        await flush();
        const expected = String(step.state.value).replace(/\d|Short/g, '');
        assert.equal(actor.getSnapshot().value, expected, `${path}: after ${e}`);
        if (expected === 'draining') assert.ok(cancelled, `${path}: a cancel stops the job between blocks`);
        if (expected === 'cancelled') assert.deepEqual(pending(), [], `${path}: cancelled only once every I/O has settled`);
      }
      const snap = actor.getSnapshot();
      finals.add(String(snap.value));
      if (snap.value === 'done') assert.deepEqual(snap.context.results, ['restored', 'restored', 'restored', 'restored'], path);
      if (snap.value === 'failed') assert.equal(snap.context.results.length, 4, `${path}: a result for every block`);
      if (p.steps.some((s) => s.event.type === 'STEP_ABSENT') && snap.value === 'failed') assert.ok(snap.context.results.includes('absent'), `${path}: the block's own reason`);
      actor.stop();
    }
    assert.deepEqual([...finals].sort(), ['cancelled', 'copying', 'done', 'draining', 'failed', 'reading']);
  });

  it('restore streams its windows: reads run up to `ahead` windows ahead, each window is copied once read, and a copy\'s end starts the next read without waiting for other windows', async () => {
    const reads: { from: number; d: Deferred<(Buffer | string)[]> }[] = [];
    const copies: { from: number; slots: (Buffer | string)[]; d: Deferred<string[]> }[] = [];
    const job: RestoreJob = {
      blocks: 8,
      window: 2,
      ahead: 3,
      read: (from) => {
        const d = deferred<(Buffer | string)[]>();
        reads.push({ from, d });
        return d.promise;
      },
      copy: (from, slots) => {
        const d = deferred<string[]>();
        copies.push({ from, slots, d });
        return d.promise;
      },
      cancel: () => undefined,
    };
    const slot = (n: number) => [Buffer.alloc(1, n), Buffer.alloc(1, n)];
    const actor = createActor(restoreMachine, { input: { job } }).start();
    try {
      assert.deepEqual(reads.map((r) => r.from), [0]);
      reads[0]!.d.resolve(slot(0));
      await flush();
      // Window 0 is copied while windows 1 and 2 are read: three windows in DRAM at once.
      assert.deepEqual(reads.map((r) => r.from), [0, 2, 4]);
      assert.deepEqual(copies.map((c) => c.from), [0]);
      // Window 2's read lands first: it is copied at once, before window 1 is even read.
      reads[2]!.d.resolve(slot(2));
      await flush();
      assert.deepEqual(copies.map((c) => c.from), [0, 4]);
      assert.equal(copies[1]!.slots[0]![0], 2, 'its own slots');
      // Window 0's copy ends: window 3 is read now, while window 1 is still being read.
      copies[0]!.d.resolve(['restored', 'restored']);
      await flush();
      assert.deepEqual(reads.map((r) => r.from), [0, 2, 4, 6]);
      assert.equal(reads[1]!.d.settled, false);
      assert.equal(actor.getSnapshot().value, 'copying');
      reads[1]!.d.resolve(slot(1));
      reads[3]!.d.resolve(slot(3));
      await flush();
      for (const c of copies.slice(1)) c.d.resolve(['restored', 'restored']);
      await flush();
      assert.deepEqual(copies.map((c) => c.from).sort(), [0, 2, 4, 6]);
      assert.equal(actor.getSnapshot().value, 'done');
      assert.deepEqual(actor.getSnapshot().context.results, Array(8).fill('restored'));
    } finally {
      actor.stop();
    }
  });

  it('restore: a block that found DRAM full while earlier windows held their slots is read again once they are copied, and served', async () => {
    const copied: { from: number; slots: (Buffer | string)[] }[] = [];
    const copy0 = deferred<string[]>();
    const readsOf: number[][] = [];
    const job: RestoreJob = {
      blocks: 4,
      window: 2,
      read: async (from, to) => {
        readsOf.push([from, to]);
        // The first read of block 3 finds DRAM full; read again alone, it is served.
        return Array.from({ length: to - from }, (_, i) => (from + i === 3 && readsOf.length === 2 ? 'dram-full' : Buffer.alloc(1, from + i)));
      },
      copy: (from, slots) => {
        copied.push({ from, slots });
        return from === 0 ? copy0.promise : Promise.resolve(slots.map((x) => (typeof x === 'string' ? x : 'restored')));
      },
      cancel: () => undefined,
    };
    const actor = createActor(restoreMachine, { input: { job } }).start();
    try {
      await flush();
      assert.deepEqual(readsOf, [[0, 2], [2, 4]]);
      assert.deepEqual(copied.map((c) => c.from), [0], 'not re-read while window 0 still holds its slots');
      copy0.resolve(['restored', 'restored']);
      await flush();
      assert.deepEqual(readsOf, [[0, 2], [2, 4], [3, 4]]);
      assert.equal((copied[1]!.slots[1] as Buffer)[0], 3);
      assert.equal(actor.getSnapshot().value, 'done');
    } finally {
      actor.stop();
    }
  });

  it('save: on every path of the model the machine agrees; a window is persisted only once staged, and the next is staged meanwhile', async () => {
    const model = setup({ types: { events: {} as { type: 'STAGE_OK' | 'STAGE_REJECT' | 'STEP_OK' | 'STEP_REJECT' } } }).createMachine({
      initial: 'staging',
      states: {
        staging: { on: { STAGE_OK: 'persisting0', STAGE_REJECT: 'failed' } },
        persisting0: { on: { STEP_OK: 'persisting1', STEP_REJECT: 'failed' } },
        persisting1: { on: { STEP_OK: 'committed', STEP_REJECT: 'failed' } },
        committed: { type: 'final' },
        failed: { type: 'final' },
      },
    });
    const paths = getSimplePaths(model, { events: ['STAGE_OK', 'STAGE_REJECT', 'STEP_OK', 'STEP_REJECT'].map((type) => ({ type }) as never) });
    for (const p of paths) {
      const stages = new Map<string, Deferred<SaveOutcome>>();
      const persists: { keys: string[]; d: Deferred<Map<string, PersistOutcome>> }[] = [];
      let failedOnce = false;
      const input: SaveInput = {
        keys: ['k0', 'k1', 'k2', 'k3'],
        window: 2,
        stage: (key) => {
          const d = deferred<SaveOutcome>();
          stages.set(key, d);
          return d.promise;
        },
        write: async (keys) => {
          // Only blocks already staged are ever written back.
          for (const k of keys) assert.ok(stages.get(k)?.settled, `${k} written before it was staged`);
          return { outcomes: new Map(keys.map((k) => [k, 'persisted'] as const)), writes: [], failed: new Map(), failure: null };
        },
        commit: (wbs) => {
          const d = deferred<Map<string, PersistOutcome>>();
          const keys = wbs.flatMap((wb) => [...wb.outcomes.keys()]);
          // A window is committed only once all its blocks were staged and written.
          assert.ok(failedOnce || keys.length === 2, `a commit of ${keys.length} blocks`);
          persists.push({ keys, d });
          return d.promise;
        },
      };
      const actor = createActor(saveMachine, { input }).start();
      const path = p.steps.map((s) => s.event.type).join(' > ');
      for (const step of p.steps) {
        const e = step.event.type as string;
        if (e === 'xstate.init') continue;
        const openStages = [...stages.values()].filter((d) => !d.settled);
        const openPersists = persists.filter((x) => !x.d.settled);
        if (e.endsWith('OK')) {
          openStages.forEach((d) => d.resolve('stored'));
          openPersists.forEach((x) => x.d.resolve(new Map(x.keys.map((k) => [k, 'persisted'] as const))));
        } else {
          failedOnce = true;
          (openPersists[0]?.d ?? openStages[0]!).reject(new Error('EIO'));
          openStages.forEach((d) => !d.settled && d.resolve('stored'));
        }
        await flush();
        const expected = String(step.state.value).replace(/\d/g, '');
        assert.equal(actor.getSnapshot().value, expected, `${path}: after ${e}`);
        if (expected === 'persisting') {
          const staging = [...stages.values()].filter((d) => !d.settled).length;
          const window = persists.length - 1;
          // While window k is written back, window k+1 (if any) is being staged.
          assert.equal(staging, window === 0 ? 2 : 0, `${path}: the next window is staged during the write-back`);
        }
      }
      const snap = actor.getSnapshot();
      if (snap.value === 'committed') assert.deepEqual(snap.context.persisted, ['persisted', 'persisted', 'persisted', 'persisted'], path);
      if (snap.value === 'failed') assert.ok(snap.context.error, `${path}: says why`);
      actor.stop();
    }
  });
});
