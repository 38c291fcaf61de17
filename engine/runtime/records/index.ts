export { RequestRing, type HeldRecord, type LookupRecord, type MissReason } from './request-ring.js';
