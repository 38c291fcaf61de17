// A harness, not the Manager: where a lookup's two xstate transitions run, and whose heap collects
// their garbage. MODE=local steps a pooled lookup-ticket actor (dist/'s machine and clock) in this
// isolate, as the Manager does; MODE=module sends the same OPEN and RELEASE through dist's TicketWorker
// (engine/runtime/lifecycles/ticket-worker.ts: the actors on a worker thread, over EventRings), a slot
// per open ticket; MODE=none only paces. Paced at RATE lookups/s (default 10000) for S seconds (default
// 4) by spinning in 20 ms slices. Run after `npm run build`, on an otherwise idle machine, e.g.:
//   for m in none local module; do MODE=$m node --min-semi-space-size=8 --max-semi-space-size=8 \
//     --no-allocation-site-pretenuring --trace-gc --trace-gc-nvp spec/bench/proto/actor-worker/main.mjs > /tmp/$m.txt; done
// and count each isolate's scavenges in /tmp/$m.txt (the first field names the isolate).
// Measured on the dev VM: spec/bench/results/runtime-gc-dev-vm.txt, its last two sections (the first
// of them with this harness's own ring and worker, which TicketWorker replaced: see git history).
import { createActor } from 'xstate';
const { lookupTicketMachine, TicketClock } = await import(new URL('../../../../dist/engine/runtime/lifecycles/index.js', import.meta.url).href);
const MODE = process.env.MODE ?? 'local';
let send, done;
let reports = 0;
if (MODE === 'none') { send = () => {}; done = () => {}; } else if (MODE === 'module') {
  // The same through engine/runtime/lifecycles/ticket-worker.ts (built): each lookup takes a free
  // slot, and a slot is free again once its actor reports the ticket released (as a service would).
  const { TicketWorker, TICKET_EVENT_KIND, TICKET_REPORT_KIND, TICKET_STATE_CODES } = await import(new URL('../../../../dist/engine/runtime/lifecycles/index.js', import.meta.url).href);
  const SLOTS = 4096;
  const free = Array.from({ length: SLOTS }, (_, i) => SLOTS - 1 - i);
  const released = TICKET_STATE_CODES.indexOf('released');
  let slot = -1;
  const w = new TicketWorker({ slots: SLOTS, leaseMs: 600000, onReport: (s, kind, value) => { reports++; if (kind === TICKET_REPORT_KIND.state && value === released) free.push(s); }, onExit: (e) => console.error('worker ended', e.message) });
  await w.ready;
  send = (type, ticket, agreed) => {
    if (type === 1) {
      slot = free.pop();
      if (slot === undefined) throw new Error('no free slot: the worker is more than 4096 lookups behind');
      w.send(slot, TICKET_EVENT_KIND.open, 1000, agreed);
    } else w.send(slot, TICKET_EVENT_KIND.release);
  };
  done = () => w.close();
} else {
  const clock = new TicketClock();
  const s = { ticket: 0 };
  const a = createActor(lookupTicketMachine, { clock, input: { effects: { settle() {}, releaseAll() { reports++; } }, leaseMs: 600000 } });
  a.subscribe({ next: () => reports++ }); a.start();
  const OPEN = { type: 'OPEN', deadlineMs: 1000, agreed: 16 }, REL = { type: 'RELEASE' };
  send = (type, ticket) => { s.ticket = ticket; a.send(type === 1 ? OPEN : REL); };
  done = () => {};
}
let i = 0; const t0 = performance.now(); const RATE = Number(process.env.RATE ?? 10000), S = Number(process.env.S ?? 4);
let busy = 0;
const step = () => {
  const end = performance.now() + 20;
  for (let now = performance.now(); now < end; now = performance.now()) {
    const due = Math.floor((now - t0) * RATE / 1000);
    if (i < due) { const b = now; send(1, i, 16); send(2, i, 0); i++; busy += performance.now() - b; }
  }
  if (performance.now() - t0 < S * 1000) setImmediate(step);
  else setTimeout(() => { console.error(`${MODE}: ${i} lookups in ${S} s, main busy ${(busy * 1000 / i).toFixed(2)} µs a lookup, reports ${reports}`); done(); }, 200);
};
step();
