import assert from 'node:assert/strict';
import { BlockCache } from '../../engine/runtime/catalog/index.js';
import { OpeningTable, type TicketEvent, type TicketState } from '../../engine/runtime/lifecycles/index.js';
import { RequestRing } from '../../engine/runtime/records/index.js';
import { OpenTicket, type TicketHost, type TicketSlot } from '../../engine/runtime/service/open-ticket.js';
import { Session } from '../../engine/runtime/session/index.js';
import { DramArena } from '../../engine/runtime/tiers/index.js';

/** A ticket whose actor is elsewhere (a worker's): events are only queued, its reports are fed by the spec. */
function queuedTicket() {
  const records = new RequestRing(16);
  const table = new OpeningTable();
  const host: TicketHost = {
    cache: new BlockCache(new DramArena(4096, 4), null),
    records,
    answered: () => undefined,
    endingChanged: () => undefined,
    ended: () => undefined,
    mismatched: () => assert.fail('no mismatch expected'),
    after: (state, type) => table.after(state, type),
  };
  const session = new Session(1, 'spec', { engine: 'vllm', version: 'x' });
  const record = records.open({ ticket: 1, request: 'r', rank: 0, session: 1, atMs: 0, namespace: 'ns', blocks: 2, state: 'pending' });
  const ticket = new OpenTicket(1, session, ['k1', 'k2'], 0, 'r', record, performance.now(), host);
  const sent: TicketEvent[] = [];
  const slot: TicketSlot = { ticket, state: 'idle' as TicketState, send: (e) => void sent.push(e) };
  ticket.slot = slot;
  const state = () => records.list({ request: 'r' })[0]!.state;
  return { ticket, sent, state };
}

describe('runtime/service: an open ticket whose actor reports later (the ticket worker)', () => {
  it('the history says what the client was told and where its RELEASE takes the ticket; a report from before the RELEASE does not take it back', () => {
    const { ticket, sent, state } = queuedTicket();
    ticket.answerAhead({ ticket: ticket.id, state: 'ready', boundary: 2, matched: 2, tiers: { dram: 2, ssd: 0 } }, { type: 'OPEN', deadlineMs: 1000, agreed: 2 });
    assert.equal(state(), 'ready', 'answered ahead: written as told');
    assert.equal(ticket.askRelease(false), 'pending', 'the state this thread knows (nobody is answered)');
    assert.deepEqual(sent.map((e) => e.type), ['OPEN', 'RELEASE'], 'the OPEN goes first');
    assert.equal(state(), 'released', 'written as the RELEASE was sent');
    ticket.observe('ready');
    assert.equal(state(), 'released', "the actor's report of its OPEN, drained after the RELEASE was sent");
    ticket.observe('released');
    assert.equal(state(), 'released');
  });

  it('an end other than the one written ahead (a lease that expired first) is what the history keeps', () => {
    const { ticket, state } = queuedTicket();
    ticket.answerAhead({ ticket: ticket.id, state: 'ready', boundary: 2, matched: 2, tiers: { dram: 2, ssd: 0 } }, { type: 'OPEN', deadlineMs: 1000, agreed: 2 });
    ticket.askRelease(false);
    ticket.observe('ready');
    ticket.observe('expired');
    assert.equal(state(), 'expired');
  });
});
