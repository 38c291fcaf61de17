import { workerData } from 'node:worker_threads';
import { createActor } from 'xstate';
import { Ring } from './ring.mjs';
const { lookupTicketMachine, TicketClock } = await import(new URL('../../../../dist/engine/runtime/lifecycles/index.js', import.meta.url).href);
const inRing = new Ring(workerData.inSab, workerData.cap), outRing = new Ring(workerData.outSab, workerData.cap);
const clock = new TicketClock();
const STATES = ['idle', 'pending', 'ready', 'restoring', 'miss', 'timedOut', 'cancelled', 'released', 'expired', 'consumed'];
const code = new Map(STATES.map((s, i) => [s, i]));
const actors = [];
const slot = (k) => {
  let a = actors[k];
  if (!a) {
    const s = { ticket: 0 };
    a = createActor(lookupTicketMachine, { clock, input: { effects: { settle() {}, releaseAll() { outRing.push(2, s.ticket, 0, 0); } }, leaseMs: 600000 } });
    a.subscribe({ next: (snap) => outRing.push(1, s.ticket, code.get(snap.value), 0) });
    a.start(); a.s = s; actors[k] = a;
  }
  return a;
};
const OPEN = { type: 'OPEN', deadlineMs: 1000, agreed: 16 }, REL = { type: 'RELEASE' };
for (;;) {
  Atomics.store(inRing.ctl, 2, 1);
  const h = Atomics.load(inRing.ctl, 0);
  if (h === Atomics.load(inRing.ctl, 1)) Atomics.wait(inRing.ctl, 0, h, 50);
  Atomics.store(inRing.ctl, 2, 0);
  inRing.drain((type, ticket, k, agreed) => {
    const a = slot(k); a.s.ticket = ticket;
    if (type === 1) { OPEN.agreed = agreed; a.send(OPEN); } else if (type === 2) a.send(REL); else if (type === 9) process.exit(0);
  });
}
