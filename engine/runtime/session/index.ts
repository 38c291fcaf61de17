export { Session, type SessionTicket } from './session.js';
