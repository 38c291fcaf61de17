export { lookupTicketMachine, OpeningTable, TICKET_FINAL, type TicketContext, type TicketEffects, type TicketEvent, type TicketInput, type TicketState } from './lookup-ticket.js';
export { TicketClock, type TicketClockOptions } from './ticket-clock.js';
export { saveMachine, type SaveContext, type SaveInput } from './save.js';
export { RestoreStream, restoreMachine, type BlockResult, type RestoreContext, type RestoreJob } from './restore.js';
export { RankAgreement, type RankMember } from './rank-agreement.js';
export { EventRing, RECORD_INTS } from './event-ring.js';
export { EVENTS_PER_SLOT, TicketWorker, type TicketWorkerOptions } from './ticket-worker.js';
export { NAP_MS, NAP_WHILE_MS, TICKET_EVENT_KIND, TICKET_REPORT_KIND, TICKET_STATE_CODES } from './ticket-worker-protocol.js';
