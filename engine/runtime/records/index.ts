export { MAX_RECORDS, MISS_REASONS, REQUEST_TEXT_BYTES, RequestRing, type FirstMiss, type LookupRecord, type MissReason, type RecordOpening } from './request-ring.js';
