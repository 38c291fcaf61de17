export { Session, TicketTable, type SessionTicket } from './session.js';
export { GrantSource } from './grant-source.js';
