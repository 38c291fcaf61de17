import assert from 'node:assert/strict';
import { getSimplePaths } from '@xstate/graph';
import { createActor } from 'xstate';
import { TICKET_FINAL, lookupTicketMachine, type TicketEvent } from '../../engine/runtime/lifecycles/index.js';

const EVENTS: TicketEvent[] = [{ type: 'AGREED', boundary: 0 }, { type: 'AGREED', boundary: 3 }, { type: 'DEFER' }, { type: 'CANCEL' }, { type: 'RELEASE' }, { type: 'CONSUME' }, { type: 'CONSUMED' }];

describe('runtime/lifecycles: the lookup ticket (model-based, @xstate/graph)', () => {
  const effects = { trim: () => undefined, releaseAll: () => undefined };
  const paths = getSimplePaths(lookupTicketMachine, { input: { effects, deadlineMs: 60_000, leaseMs: 60_000 }, events: EVENTS, serializeState: ((s: { value: unknown; context: { boundary: unknown } }) => `${String(s.value)}|${String(s.context.boundary)}`) as never });

  it('reaches every state; only an agreed boundary of 0 is a miss (pending is never one)', () => {
    const reached = new Set(paths.map((p) => p.state.value as string));
    // `expired` is entered by the lease timer only (covered against a real Manager in manager.spec.ts).
    assert.deepEqual([...reached].sort(), ['pending', 'ready', 'restoring', ...TICKET_FINAL.filter((s) => s !== 'expired')].sort());
    for (const p of paths) {
      if (p.state.value !== 'miss') continue;
      const into = p.steps.at(-1)!.event;
      assert.deepEqual(into, { type: 'AGREED', boundary: 0 });
    }
  });

  it('on every path leases are trimmed once on ready and released exactly once, on reaching a final state', () => {
    for (const p of paths) {
      const calls = { trim: 0, releaseAll: 0 };
      const actor = createActor(lookupTicketMachine, { input: { effects: { trim: () => void calls.trim++, releaseAll: () => void calls.releaseAll++ }, deadlineMs: 60_000, leaseMs: 60_000 } }).start();
      for (const step of p.steps) if ((step.event.type as string) !== 'xstate.init') actor.send(step.event);
      const snap = actor.getSnapshot();
      const final = (TICKET_FINAL as readonly string[]).includes(snap.value as string);
      const path = p.steps.map((s) => s.event.type).join(' > ');
      assert.equal(calls.releaseAll, final ? 1 : 0, path);
      assert.equal(calls.trim, p.steps.some((s) => s.state.value === 'ready') ? 1 : 0, path);
      if (snap.value === 'consumed') assert.ok(p.steps.some((s) => s.state.value === 'restoring'), 'consumed only through a restore');
      actor.stop();
    }
  });
});
