export { SsdIndex, syncDirSync, type IndexEntry, type Recovery } from './ssd-index.js';
export { KEY_BYTES, RECORD_BYTES, decodeRecord, encodeRecord, type ChecksumKind, type IndexRecord } from './record.js';
