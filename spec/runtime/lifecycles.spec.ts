import assert from 'node:assert/strict';
import { getSimplePaths } from '@xstate/graph';
import { createActor } from 'xstate';
import { TICKET_FINAL, lookupTicketMachine, type TicketEffects, type TicketEvent } from '../../engine/runtime/lifecycles/index.js';

const effects: TicketEffects = { trim: () => undefined, releaseAll: () => undefined };
const OPEN: TicketEvent = { type: 'OPEN', effects, deadlineMs: 60_000, leaseMs: 60_000 };
const EVENTS: TicketEvent[] = [OPEN, { type: 'AGREED', boundary: 0 }, { type: 'AGREED', boundary: 3 }, { type: 'DEFER' }, { type: 'CANCEL' }, { type: 'RELEASE' }, { type: 'CONSUME' }, { type: 'CONSUMED' }];
const ENDED = TICKET_FINAL as readonly string[];

describe('runtime/lifecycles: the lookup ticket (model-based, @xstate/graph)', () => {
  // One ticket's life: paths from idle that open once (a second OPEN starts the next ticket, checked below).
  const paths = getSimplePaths(lookupTicketMachine, { events: EVENTS, serializeState: ((s: { value: unknown; context: { boundary: unknown } }) => `${String(s.value)}|${String(s.context.boundary)}`) as never }).filter(
    (p) => p.steps.filter((s) => s.event.type === 'OPEN').length <= 1,
  );

  it('reaches every state; only an agreed boundary of 0 is a miss (pending is never one)', () => {
    const reached = new Set(paths.map((p) => p.state.value as string));
    // `expired` is entered by the lease timer only (covered against a real Manager in manager.spec.ts).
    assert.deepEqual([...reached].sort(), ['idle', 'pending', 'ready', 'restoring', ...TICKET_FINAL.filter((s) => s !== 'expired')].sort());
    for (const p of paths) {
      if (p.state.value !== 'miss') continue;
      const into = p.steps.at(-1)!.event;
      assert.deepEqual(into, { type: 'AGREED', boundary: 0 });
    }
  });

  it('on every path leases are trimmed once on ready and released exactly once, on reaching an ended state', () => {
    for (const p of paths) {
      const calls = { trim: 0, releaseAll: 0 };
      const counted: TicketEffects = { trim: () => void calls.trim++, releaseAll: () => void calls.releaseAll++ };
      const actor = createActor(lookupTicketMachine).start();
      for (const step of p.steps) if ((step.event.type as string) !== 'xstate.init') actor.send(step.event.type === 'OPEN' ? { ...OPEN, effects: counted } : step.event);
      const snap = actor.getSnapshot();
      const ended = ENDED.includes(snap.value as string);
      const path = p.steps.map((s) => s.event.type).join(' > ');
      assert.equal(calls.releaseAll, ended ? 1 : 0, path);
      assert.equal(calls.trim, p.steps.some((s) => s.state.value === 'ready') ? 1 : 0, path);
      if (snap.value === 'consumed') assert.ok(p.steps.some((s) => s.state.value === 'restoring'), 'consumed only through a restore');
      actor.stop();
    }
  });

  it('an actor serves tickets in turn: OPEN starts a new one only once the last has ended, with its own effects and a fresh boundary', () => {
    const actor = createActor(lookupTicketMachine).start();
    const log: string[] = [];
    const tagged = (tag: string): TicketEffects => ({ trim: (b) => void log.push(`${tag}:trim:${b}`), releaseAll: () => void log.push(`${tag}:release`) });
    actor.send({ ...OPEN, effects: tagged('a') });
    actor.send({ type: 'AGREED', boundary: 3 });
    // A ticket that has not ended ignores an OPEN: a second ticket never takes over its leases.
    actor.send({ ...OPEN, effects: tagged('b') });
    assert.equal(actor.getSnapshot().value, 'ready');
    actor.send({ type: 'RELEASE' });
    for (const state of ENDED) assert.ok(lookupTicketMachine.states[state]!.on['OPEN'], `${state} takes the next OPEN`);
    actor.send({ ...OPEN, effects: tagged('b') });
    assert.deepEqual([actor.getSnapshot().value, actor.getSnapshot().context.boundary], ['pending', null]);
    actor.send({ type: 'AGREED', boundary: 0 });
    assert.deepEqual(log, ['a:trim:3', 'a:release', 'b:release']);
    actor.stop();
  });
});
