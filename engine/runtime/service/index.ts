export { CacheService, RequestError, type LookupReply, type ServiceOptions } from './cache-service.js';
export { KeyMemo } from './key-memo.js';
export { MainTickets, TICKET_ACTORS, WorkerTickets, type TicketActors, type TicketRunner } from './ticket-runner.js';
