import { createActor } from 'xstate';
import { lookupTicketMachine as m } from '../../engine/runtime/lifecycles/index.js';
const effects = { trim: () => undefined, releaseAll: () => undefined };
const a = createActor(m).start();
let n = 0; a.subscribe(() => n++);
for (let r = 0; r < 3; r++) {
  const N = 100000;
  const t0 = performance.now();
  for (let i = 0; i < N; i++) {
    a.send({ type: 'OPEN', effects, deadlineMs: 1000, leaseMs: 1000 });
    a.send({ type: 'AGREED', boundary: 4 });
    a.send({ type: 'RELEASE' });
  }
  console.log('pooled', ((performance.now() - t0) * 1000) / N, a.getSnapshot().value);
}
