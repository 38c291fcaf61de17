/**
 * The SSD tier: one preallocated data file of fixed slots under the tier folder, read and
 * written with O_DIRECT through the native ring (io_uring, or the thread pool where it is
 * refused), and the crash-safe index beside it. A slot's bytes are synced before the index
 * record that names them, so a committed entry always points at its own bytes; each read is
 * checked against the recorded checksum (a mismatch is a miss, never served).
 */
import { closeSync, existsSync, fstatSync, fsyncSync, ftruncateSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { openFile, openRing, type DirectFile, type IoRing } from '../../../../native/index.js';
import { SlotPool } from '../slots/index.js';
import { SsdIndex } from './index/index.js';
import { faultPoint } from '../../faults/index.js';

export interface SsdOptions {
  dir: string;
  slotBytes: number;
  slots: number;
  /** Journal records between checkpoints. */
  checkpointEvery?: number;
  ringDepth?: number;
}

const PREALLOCATE_CHUNK = 1 << 20;

export class SsdTier {
  readonly index: SsdIndex;
  readonly pool: SlotPool;
  readonly ring: IoRing;
  readonly file: DirectFile;
  readonly slotBytes: number;
  readonly slots: number;
  /** Bytes moved and errors met, for the metrics. */
  readonly counters = { readBytes: 0, writeBytes: 0, readErrors: 0, writeErrors: 0, checksumMisses: 0 };

  constructor(options: SsdOptions) {
    this.slotBytes = options.slotBytes;
    this.slots = options.slots;
    mkdirSync(options.dir, { recursive: true, mode: 0o700 });
    const path = join(options.dir, 'blocks.dat');
    preallocate(path, this.slotBytes * this.slots);
    this.file = openFile(path, { write: true, direct: 'auto' });
    this.ring = openRing({ depth: options.ringDepth ?? 64, backend: 'auto' });
    this.index = new SsdIndex(options.dir, this.slots, options.checkpointEvery ?? 4096);
    this.pool = new SlotPool(this.slots);
    const held = [...this.index.entries.values()].sort((a, b) => a.seq - b.seq).map((e) => e.slot);
    if (!this.pool.adopt(held)) throw new Error('SSD index names a slot twice or out of range');
  }

  get backend(): string {
    return this.ring.backend;
  }

  /** Writes a DRAM slot's bytes into an SSD slot (not yet synced: see `sync`). */
  async write(slot: number, bytes: Buffer): Promise<void> {
    try {
      await this.ring.write(this.file, bytes, slot * this.slotBytes, this.slotBytes);
      this.counters.writeBytes += this.slotBytes;
    } catch (error) {
      this.counters.writeErrors++;
      throw error;
    }
  }

  /** Makes every completed write durable (one fsync for a batch of writes). */
  async sync(): Promise<void> {
    try {
      await this.ring.fsync(this.file);
    } catch (error) {
      this.counters.writeErrors++;
      throw error;
    }
  }

  /** Reads an SSD slot into `into`; false when its checksum does not match the index. */
  async read(slot: number, into: Buffer, crc: number, length: number): Promise<boolean> {
    try {
      await this.ring.read(this.file, into, slot * this.slotBytes, this.slotBytes);
      await faultPoint('ssd-read-hold-ms');
      this.counters.readBytes += this.slotBytes;
    } catch (error) {
      this.counters.readErrors++;
      throw error;
    }
    if ((crc32(into.subarray(0, length)) >>> 0) !== crc) {
      this.counters.checksumMisses++;
      return false;
    }
    return true;
  }

  async close(): Promise<void> {
    await this.index.close();
    await this.file.close();
    await this.ring.close();
  }
}

/** Makes the data file its full size with real blocks (zeros), so a full disk shows at start, not mid-save. */
function preallocate(path: string, bytes: number): void {
  const fd = openSync(path, existsSync(path) ? 'r+' : 'w+', 0o600);
  try {
    const size = fstatSync(fd).size;
    if (size > bytes) ftruncateSync(fd, bytes);
    const zeros = Buffer.alloc(Math.min(PREALLOCATE_CHUNK, Math.max(bytes, 1)));
    for (let at = size; at < bytes; at += zeros.length) writeSync(fd, zeros, 0, Math.min(zeros.length, bytes - at), at);
    if (size < bytes) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
