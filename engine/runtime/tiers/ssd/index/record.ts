/**
 * One index record: 64 bytes, self-checking. A put says "key K's block is in slot S with
 * checksum C"; a drop says "slot S no longer holds K". The sequence number orders records
 * across the checkpoint and the journal.
 *
 *   0 magic u32 'OKVJ' | 4 type u8 | 5 block checksum kind u8, 2 zero | 8 seq u64 | 16 key 32 bytes
 *   48 slot u32 | 52 block checksum u32 | 56 block length u32 | 60 crc32 of bytes 0..59
 *
 * The block checksum is CRC-32C (kind 1) since the copy into DRAM computes it natively; records
 * written before carry zlib's CRC-32 (kind 0, the zero that byte held) and are still verified
 * with it, so a tier written by an older Manager keeps serving.
 */
import { crc32 } from 'node:zlib';

export const RECORD_BYTES = 64;
export const RECORD_MAGIC = 0x4a564b4f;
export const KEY_BYTES = 32;

export type RecordType = 'put' | 'drop';
/** How a block's checksum was computed: zlib's CRC-32 (records before kind 1) or CRC-32C. */
export type ChecksumKind = 'crc32' | 'crc32c';
const KIND_BYTE: Record<ChecksumKind, number> = { crc32: 0, crc32c: 1 };

export interface IndexRecord {
  type: RecordType;
  seq: number;
  /** 32-byte key digest as lowercase hex. */
  key: string;
  slot: number;
  crc: number;
  length: number;
  /** Default 'crc32c'. */
  sum?: ChecksumKind;
}

export function encodeRecord(record: IndexRecord, into: Buffer = Buffer.alloc(RECORD_BYTES), at = 0): Buffer {
  into.fill(0, at, at + RECORD_BYTES);
  into.writeUInt32LE(RECORD_MAGIC, at);
  into.writeUInt8(record.type === 'put' ? 1 : 2, at + 4);
  into.writeUInt8(KIND_BYTE[record.sum ?? 'crc32c'], at + 5);
  into.writeUInt32LE(record.seq % 0x1_0000_0000, at + 8);
  into.writeUInt32LE(Math.floor(record.seq / 0x1_0000_0000), at + 12);
  into.write(record.key, at + 16, KEY_BYTES, 'hex');
  into.writeUInt32LE(record.slot, at + 48);
  into.writeUInt32LE(record.crc >>> 0, at + 52);
  into.writeUInt32LE(record.length, at + 56);
  into.writeUInt32LE(crc32(into.subarray(at, at + 60)) >>> 0, at + 60);
  return into;
}

/** The record at `at`, or null when it is torn (bad magic, type or checksum). */
export function decodeRecord(from: Buffer, at = 0): IndexRecord | null {
  if (from.length < at + RECORD_BYTES) return null;
  if (from.readUInt32LE(at) !== RECORD_MAGIC) return null;
  if ((crc32(from.subarray(at, at + 60)) >>> 0) !== from.readUInt32LE(at + 60)) return null;
  const type = from.readUInt8(at + 4);
  if (type !== 1 && type !== 2) return null;
  const kind = from.readUInt8(at + 5);
  if (kind !== 0 && kind !== 1) return null;
  return {
    type: type === 1 ? 'put' : 'drop',
    seq: from.readUInt32LE(at + 12) * 0x1_0000_0000 + from.readUInt32LE(at + 8),
    key: from.toString('hex', at + 16, at + 48),
    slot: from.readUInt32LE(at + 48),
    crc: from.readUInt32LE(at + 52),
    length: from.readUInt32LE(at + 56),
    sum: kind === 1 ? 'crc32c' : 'crc32',
  };
}
