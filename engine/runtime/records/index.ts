export { MISS_REASONS, RequestRing, type FirstMiss, type LookupRecord, type MissReason, type RecordOpening } from './request-ring.js';
