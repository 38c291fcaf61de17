export { RequestRing, type LookupRecord, type MissReason } from './request-ring.js';
