export { Session, TicketTable, type SessionTicket } from './session.js';
export { GRANT_BYTES, GrantSource, grantHex, grantKey, writeGrant } from './grant-source.js';
