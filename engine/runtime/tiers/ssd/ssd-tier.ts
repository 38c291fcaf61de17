/**
 * The SSD tier: one preallocated data file of fixed slots under the tier folder, read and
 * written with O_DIRECT through the native ring (io_uring, or the thread pool where it is
 * refused), and the crash-safe index beside it. A slot's bytes are synced before the index
 * record that names them, so a committed entry always points at its own bytes; each read is
 * checked against the recorded checksum (a mismatch is a miss, never served). The file grows
 * to its size in the background (nothing blocks the event loop) and never takes the room the
 * index needs.
 */
import { closeSync, existsSync, fdatasync, fstatSync, ftruncateSync, mkdirSync, openSync } from 'node:fs';
import { open, statfs } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { crc32 } from 'node:zlib';
import { crc32c, fallocateFile, openFile, openRing, type DirectFile, type IoRing } from '../../../../native/index.js';
import { SlotPool } from '../slots/index.js';
import { CopyBatcher } from '../../pages/index.js';
import { RECORD_BYTES, SsdIndex, syncDirSync, type ChecksumKind } from './index/index.js';
import { faultPoint } from '../../faults/index.js';

export interface SsdOptions {
  dir: string;
  slotBytes: number;
  slots: number;
  /** Journal records between checkpoints. */
  checkpointEvery?: number;
  ringDepth?: number;
}

const PREALLOCATE_CHUNK = 4 << 20;
/** Most slot reads and writes the tier's ring submits at once (unless `ringDepth` says otherwise). */
export const SSD_RING_DEPTH = 64;

/** How the data file reached its full size, or how far it got and why it stopped. */
export interface Preallocation {
  bytes: number;
  method: 'present' | 'fallocate+zeros' | 'zeros';
  error: string | null;
  /** Why fallocate(2) did not reserve the room (its errno's name: EOPNOTSUPP, ENOSPC...), when it did not. */
  reserveRefused?: string;
}

export class SsdTier {
  readonly index: SsdIndex;
  readonly pool: SlotPool;
  readonly ring: IoRing;
  readonly file: DirectFile;
  readonly slotBytes: number;
  readonly slots: number;
  /** Bytes moved and errors met, for the metrics. */
  readonly counters = { readBytes: 0, writeBytes: 0, readErrors: 0, writeErrors: 0, checksumMisses: 0 };
  /**
   * The data file growing to its full size, in the background (fallocate to reserve the room,
   * then queued writes of zeros): slots become usable as their bytes exist, so a large tier serves at once and
   * a full disk stops the tier's growth (a smaller tier, logged) rather than the start.
   */
  readonly preallocation: Promise<Preallocation>;
  /** Whether the file is still growing (more slots to come). */
  growing: boolean;
  /** Settles at the next grant of slots or the end of growth (one promise shared by all waiters). */
  private nextGrant: { promise: Promise<void>; resolve: () => void } | null = null;
  /** Checksums of blocks read, computed natively in batches. */
  private readonly checksums = new CopyBatcher();
  /** Data syncs running (at most one per save in progress). */
  private readonly syncs = new Set<Promise<void>>();

  /** Disk space left free for the index: two checkpoints of a full table and a full journal, plus 1 MiB. */
  private readonly indexReserve: number;

  constructor(options: SsdOptions) {
    this.slotBytes = options.slotBytes;
    this.indexReserve = (2 * options.slots + 2 * (options.checkpointEvery ?? 4096)) * RECORD_BYTES + (1 << 20);
    this.slots = options.slots;
    mkdirSync(options.dir, { recursive: true, mode: 0o700 });
    const path = join(options.dir, 'blocks.dat');
    const bytes = this.slotBytes * this.slots;
    const size = sizeTo(path, bytes);
    this.file = openFile(path, { write: true, direct: 'auto' });
    this.ring = openRing({ depth: options.ringDepth ?? SSD_RING_DEPTH, backend: 'auto' });
    this.index = new SsdIndex(options.dir, this.slots, options.checkpointEvery ?? 4096);
    const held = [...this.index.entries.values()].sort((a, b) => a.seq - b.seq).map((e) => e.slot);
    // A slot the index names is usable even if the file was cut short under it (its read then fails, a miss).
    this.pool = new SlotPool(this.slots, Math.max(Math.floor(size / this.slotBytes), ...held.map((s) => s + 1)));
    if (!this.pool.adopt(held)) throw new Error('SSD index names a slot twice or out of range');
    this.growing = size < bytes;
    this.preallocation = size >= bytes ? Promise.resolve({ bytes, method: 'present', error: null }) : this.grow(path, size, bytes).finally(() => {
      this.growing = false;
      this.granted();
    });
  }

  /** Resolves once more slots are usable or the file has stopped growing. */
  grown(): Promise<void> {
    if (!this.growing) return Promise.resolve();
    if (!this.nextGrant) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.nextGrant = { promise, resolve };
    }
    return this.nextGrant.promise;
  }

  private granted(): void {
    const waiting = this.nextGrant;
    this.nextGrant = null;
    waiting?.resolve();
  }

  private async grow(path: string, from: number, full: number): Promise<Preallocation> {
    // Never the whole disk: the index's journal and checkpoints need room beside the blocks.
    const free = await statfs(path).then((s) => s.bavail * s.bsize, () => Number.POSITIVE_INFINITY);
    const room = Math.floor(Math.max(0, free - this.indexReserve) / this.slotBytes) * this.slotBytes;
    const bytes = Math.min(full, from + room);
    const short = bytes < full ? 'ENOSPC' : null;
    if (bytes <= from) return { bytes: from, method: 'zeros', error: short };
    // fallocate reserves the room at once; the zeros that follow turn its unwritten extents into
    // written blocks, so a save overwrites in place (a first write into an unwritten extent
    // costs a metadata conversion that every fsync then commits). Slots are granted as the
    // zeros reach them.
    const refused = await fallocateFile(path, from, bytes - from);
    const reserved = refused === null;
    const why = reserved ? {} : { reserveRefused: refused };
    let at = from;
    try {
      const file = await open(path, 'r+');
      try {
        const zeros = Buffer.alloc(Math.min(PREALLOCATE_CHUNK, bytes - from));
        while (at < bytes) {
          const n = Math.min(zeros.length, bytes - at);
          const { bytesWritten } = await file.write(zeros, 0, n, at);
          if (bytesWritten === 0) throw Object.assign(new Error('no bytes written'), { code: 'EIO' });
          at += bytesWritten;
          this.pool.grant(Math.floor(at / this.slotBytes));
          this.granted();
        }
        await file.sync();
      } finally {
        await file.close();
      }
      return { bytes, method: reserved ? 'fallocate+zeros' : 'zeros', error: short, ...why };
    } catch (error) {
      // The slots granted so far stay usable (their bytes exist); the rest never are.
      return { bytes: at, method: reserved ? 'fallocate+zeros' : 'zeros', error: (error as NodeJS.ErrnoException).code ?? String(error), ...why };
    }
  }

  /**
   * Registers the DRAM arena with the ring (io_uring fixed buffers), so slot reads and writes
   * skip the kernel's per-op page pinning. False where it is refused (the thread-pool backend,
   * a memlock limit, an arena over io_uring's 1 GiB per buffer): ops then pin per op, as before.
   */
  useArena(memory: Uint8Array): boolean {
    if (this.ring.backend !== 'io_uring') return false;
    try {
      return this.ring.registerBuffers([memory]) === 1;
    } catch {
      return false;
    }
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

  /**
   * Makes every write that has completed durable (one fdatasync for a batch of writes; the
   * file's size never changes after preallocation). It runs beside the ring, not as a ring
   * barrier: writes of the next batch keep the device busy meanwhile, and the caller has
   * awaited the writes it needs synced. `close` waits for it.
   */
  async sync(): Promise<void> {
    const done = new Promise<void>((resolve, reject) => fdatasync(this.file.fd, (e) => (e ? reject(e) : resolve())));
    this.syncs.add(done);
    try {
      await done;
    } catch (error) {
      this.counters.writeErrors++;
      throw error;
    } finally {
      this.syncs.delete(done);
    }
  }

  /** Reads an SSD slot into `into`; false when its checksum (of the recorded kind) does not match the index. */
  async read(slot: number, into: Buffer, crc: number, length: number, sum: ChecksumKind = 'crc32c'): Promise<boolean> {
    try {
      await this.ring.read(this.file, into, slot * this.slotBytes, this.slotBytes);
      await faultPoint('ssd-read-hold-ms');
      this.counters.readBytes += this.slotBytes;
    } catch (error) {
      this.counters.readErrors++;
      throw error;
    }
    const bytes = into.subarray(0, length);
    // CRC-32C off the JS thread (batched with the other reads that completed in this turn).
    if ((sum === 'crc32c' ? await this.checksums.checksum(bytes) : blockChecksum(bytes, sum)) !== crc) {
      this.counters.checksumMisses++;
      return false;
    }
    return true;
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.syncs]);
    await this.index.close();
    await this.file.close();
    await this.ring.close();
  }
}

/** A block's checksum of the given kind (CRC-32C natively; zlib's CRC-32 for records written before it). */
export const blockChecksum = (bytes: Uint8Array, sum: ChecksumKind): number => (sum === 'crc32c' ? crc32c(bytes) : crc32(bytes) >>> 0);

/** Opens (creating) the data file, cuts it to `bytes` if larger, and returns its size. */
function sizeTo(path: string, bytes: number): number {
  const created = !existsSync(path);
  const fd = openSync(path, created ? 'w+' : 'r+', 0o600);
  // Its name made durable before any block is written into it (the index names slots of this file).
  if (created) syncDirSync(dirname(path));
  try {
    const size = fstatSync(fd).size;
    if (size > bytes) ftruncateSync(fd, bytes);
    return Math.min(size, bytes);
  } finally {
    closeSync(fd);
  }
}
