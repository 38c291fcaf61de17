/**
 * The SSD tier's crash-safe index: an append-only journal of self-checking records plus a
 * periodic checkpoint. A record is committed once its journal write is synced; recovery loads
 * the checkpoint, replays the journal up to its first torn record (cut off there), and so
 * keeps every committed entry and nothing torn. Memory is one entry per SSD slot at most.
 */
import { closeSync, existsSync, fdatasync, fdatasyncSync, fstatSync, fsyncSync, ftruncate, ftruncateSync, openSync, readFileSync, readSync, write } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { RECORD_BYTES, decodeRecord, encodeRecord, type ChecksumKind, type IndexRecord } from './record.js';

export interface IndexEntry {
  slot: number;
  crc: number;
  length: number;
  seq: number;
  sum: ChecksumKind;
}

type Change = { type: 'put' | 'drop'; key: string; slot: number; crc: number; length: number; sum?: ChecksumKind };

interface CommitGroup {
  members: { changes: Change[]; resolve: () => void; reject: (error: unknown) => void }[];
}

export interface Recovery {
  entries: number;
  /** Journal bytes cut off as torn at the tail. */
  tornBytes: number;
  checkpointSeq: number;
  journalRecords: number;
}

const CHECKPOINT_MAGIC = 0x434b564f;
const CHECKPOINT_HEADER = 32;

export class SsdIndex {
  readonly entries = new Map<string, IndexEntry>();
  private readonly bySlot = new Map<number, string>();
  private journalFd: number;
  private journalBytes = 0;
  private journalRecords = 0;
  private seq = 0;
  private flushing: Promise<void> = Promise.resolve();
  /** The group of batches still waiting for its turn (commits asked for now join it). */
  private nextGroup: CommitGroup | null = null;
  /** Journal records at which the next checkpoint is queued. */
  private nextCheckpointAt: number;
  /** Checkpoints that failed (the journal kept everything they would have held). */
  checkpointFailures = 0;
  readonly recovery: Recovery;

  constructor(private readonly dir: string, private readonly slots: number, private readonly checkpointEvery: number) {
    const journal = join(dir, 'index.journal');
    this.nextCheckpointAt = checkpointEvery;
    const created = !existsSync(journal);
    this.journalFd = openSync(journal, created ? 'w+' : 'r+', 0o600);
    // A new file's name is durable only once its folder is synced: commits into a journal whose
    // entry a power loss drops would be lost with it.
    if (created) syncDirSync(dir);
    this.recovery = this.recover();
  }

  /** The next sequence number (records are numbered by the index, in commit order). */
  private nextSeq(): number {
    return ++this.seq;
  }

  lookup(key: string): IndexEntry | undefined {
    return this.entries.get(key);
  }

  keyAt(slot: number): string | undefined {
    return this.bySlot.get(slot);
  }

  /**
   * Durably records a batch of puts and drops (one write, one fdatasync) and applies them.
   * Batches commit in call order. Group commit: batches asked for while an earlier commit or
   * checkpoint is still running go out together in the next write and fdatasync (each caller
   * is answered once its records are durable; if that write fails, every batch in it fails).
   */
  commit(changes: Change[]): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const group = this.nextGroup ?? this.openGroup();
      group.members.push({ changes, resolve, reject });
    });
  }

  /** A group of batches that commits after everything queued so far. */
  private openGroup(): CommitGroup {
    const group: CommitGroup = { members: [] };
    this.nextGroup = group;
    const done = this.flushing.then(() => {
      if (this.nextGroup === group) this.nextGroup = null;
      return this.write(group.members.flatMap((m) => m.changes));
    });
    done.then(
      () => group.members.forEach((m) => m.resolve()),
      (error: unknown) => group.members.forEach((m) => m.reject(error)),
    );
    this.flushing = done.catch(() => undefined);
    return group;
  }

  private async write(changes: Change[]): Promise<void> {
    const records: IndexRecord[] = changes.map((c) => ({ ...c, seq: this.nextSeq() }));
    const bytes = Buffer.alloc(records.length * RECORD_BYTES);
    records.forEach((r, i) => encodeRecord(r, bytes, i * RECORD_BYTES));
    try {
      await writeAll(this.journalFd, bytes, this.journalBytes);
      await new Promise<void>((resolve, reject) => fdatasync(this.journalFd, (e) => (e ? reject(e) : resolve())));
    } catch (error) {
      // Nothing of a failed batch may stay behind the journal's end to be replayed later.
      try {
        ftruncateSync(this.journalFd, this.journalBytes);
      } catch {
        // Replay stops at the first sequence number that does not increase, which the next
        // batch's records guarantee.
      }
      throw error;
    }
    this.journalBytes += bytes.length;
    this.journalRecords += records.length;
    for (const r of records) this.apply(r);
    if (this.journalRecords >= this.nextCheckpointAt) this.queueCheckpoint();
  }

  /**
   * A checkpoint behind the commit that asked for it, off the event loop: that commit is
   * answered first; later commits wait for it (the journal is emptied only after its rename).
   * A checkpoint that fails (a full disk) loses nothing: the journal stays whole, the failure
   * is counted, and the next try waits another `checkpointEvery` records.
   */
  private queueCheckpoint(): void {
    this.nextCheckpointAt = Number.POSITIVE_INFINITY;
    // Commits asked for from now on go after the checkpoint.
    this.nextGroup = null;
    this.flushing = this.flushing.then(() =>
      this.writeCheckpoint().then(
        () => {
          this.nextCheckpointAt = this.checkpointEvery;
        },
        () => {
          this.checkpointFailures++;
          this.nextCheckpointAt = this.journalRecords + this.checkpointEvery;
        },
      ),
    );
  }

  /** Settles once every commit and checkpoint asked for so far has run. */
  settled(): Promise<void> {
    return this.flushing;
  }

  /**
   * Writes the whole table as a checkpoint, in turn with the commits: a batch being written
   * is in the table (and its records out of the journal) only once it has been applied.
   * Resolves false when it could not be written (counted; the journal still holds everything).
   */
  checkpoint(): Promise<boolean> {
    this.nextGroup = null;
    const done = this.flushing.then(() => this.writeCheckpoint()).then(
      () => {
        this.nextCheckpointAt = this.checkpointEvery;
        return true;
      },
      () => {
        this.checkpointFailures++;
        return false;
      },
    );
    this.flushing = done.then(() => undefined);
    return done;
  }

  /** Writes the whole table as a checkpoint (atomic rename), then empties the journal. */
  private async writeCheckpoint(): Promise<void> {
    const list = [...this.entries];
    const seq = this.seq;
    const body = Buffer.alloc(list.length * RECORD_BYTES);
    list.forEach(([key, e], i) => encodeRecord({ type: 'put', key, slot: e.slot, crc: e.crc, length: e.length, seq: e.seq, sum: e.sum }, body, i * RECORD_BYTES));
    const header = Buffer.alloc(CHECKPOINT_HEADER);
    header.writeUInt32LE(CHECKPOINT_MAGIC, 0);
    header.writeUInt32LE(1, 4);
    header.writeUInt32LE(seq % 0x1_0000_0000, 8);
    header.writeUInt32LE(Math.floor(seq / 0x1_0000_0000), 12);
    header.writeUInt32LE(list.length, 16);
    header.writeUInt32LE(crc32(body) >>> 0, 20);
    header.writeUInt32LE(crc32(header.subarray(0, 28)) >>> 0, 28);
    const tmp = join(this.dir, 'index.checkpoint.tmp');
    const file = await open(tmp, 'w', 0o600);
    try {
      const { bytesWritten } = await file.writev([header, body], 0);
      if (bytesWritten !== header.length + body.length) throw Object.assign(new Error(`checkpoint: ${bytesWritten} of ${header.length + body.length} bytes written`), { code: 'EIO' });
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(tmp, join(this.dir, 'index.checkpoint'));
    await syncDir(this.dir);
    // Records at or below the checkpoint's sequence are ignored at recovery, so a crash
    // between the rename and this truncation loses nothing. (Commits wait behind this one, so
    // nothing was appended since the table was taken.)
    await new Promise<void>((resolve, reject) => ftruncate(this.journalFd, 0, (e) => (e ? reject(e) : resolve())));
    this.journalBytes = 0;
    this.journalRecords = 0;
    await new Promise<void>((resolve, reject) => fdatasync(this.journalFd, (e) => (e ? reject(e) : resolve())));
  }

  /** Closes the journal once every commit and checkpoint asked for has run. */
  async close(): Promise<void> {
    await this.flushing;
    closeSync(this.journalFd);
  }

  private apply(r: IndexRecord): void {
    if (r.seq > this.seq) this.seq = r.seq;
    if (r.type === 'drop') {
      if (this.bySlot.get(r.slot) === r.key) {
        this.bySlot.delete(r.slot);
        this.entries.delete(r.key);
      }
      return;
    }
    if (r.slot >= this.slots) return; // an index from a larger tier: that slot is gone.
    const previous = this.bySlot.get(r.slot);
    if (previous !== undefined) this.entries.delete(previous);
    const old = this.entries.get(r.key);
    if (old !== undefined) this.bySlot.delete(old.slot);
    this.entries.set(r.key, { slot: r.slot, crc: r.crc, length: r.length, seq: r.seq, sum: r.sum ?? 'crc32c' });
    this.bySlot.set(r.slot, r.key);
  }

  private recover(): Recovery {
    let checkpointSeq = 0;
    const file = join(this.dir, 'index.checkpoint');
    if (existsSync(file)) {
      const data = readFileSync(file);
      const ok = data.length >= CHECKPOINT_HEADER && data.readUInt32LE(0) === CHECKPOINT_MAGIC && (crc32(data.subarray(0, 28)) >>> 0) === data.readUInt32LE(28);
      const count = ok ? data.readUInt32LE(16) : 0;
      const body = data.subarray(CHECKPOINT_HEADER, CHECKPOINT_HEADER + count * RECORD_BYTES);
      // A checkpoint is written whole before its rename: a bad one is corruption, not a tear.
      if (!ok || body.length !== count * RECORD_BYTES || (crc32(body) >>> 0) !== data.readUInt32LE(20)) throw Object.assign(new Error(`${file}: checkpoint fails its checksum`), { code: 'ECHECKPOINT' });
      checkpointSeq = data.readUInt32LE(12) * 0x1_0000_0000 + data.readUInt32LE(8);
      for (let at = 0; at < body.length; at += RECORD_BYTES) {
        const r = decodeRecord(body, at);
        if (r) this.apply(r);
      }
      if (checkpointSeq > this.seq) this.seq = checkpointSeq;
    }
    const size = fstatSync(this.journalFd).size;
    const journal = Buffer.alloc(size);
    if (size > 0) readFull(this.journalFd, journal);
    let at = 0;
    let replayed = 0;
    let lastSeq = 0;
    for (; at + RECORD_BYTES <= size; at += RECORD_BYTES) {
      const r = decodeRecord(journal, at);
      // A torn record, or one not after the last: the leftovers of a failed commit, overwritten
      // in part by the next. Nothing from there on is trusted.
      if (!r || r.seq <= lastSeq) break;
      lastSeq = r.seq;
      replayed++;
      if (r.seq > checkpointSeq) this.apply(r);
    }
    const tornBytes = size - at;
    if (tornBytes > 0) {
      ftruncateSync(this.journalFd, at);
      fdatasyncSync(this.journalFd);
    }
    this.journalBytes = at;
    this.journalRecords = replayed;
    return { entries: this.entries.size, tornBytes, checkpointSeq, journalRecords: replayed };
  }
}

function readFull(fd: number, into: Buffer): void {
  let done = 0;
  while (done < into.length) {
    const n = readSyncAt(fd, into, done);
    if (n === 0) break;
    done += n;
  }
}

const readSyncAt = (fd: number, into: Buffer, at: number) => readSync(fd, into, at, into.length - at, at);

async function writeAll(fd: number, bytes: Buffer, position: number): Promise<void> {
  let done = 0;
  while (done < bytes.length) {
    const n = await new Promise<number>((resolve, reject) => write(fd, bytes, done, bytes.length - done, position + done, (e, w) => (e ? reject(e) : resolve(w))));
    done += n;
  }
}

/** fsync of a folder, at once (a file was just created in it). */
export function syncDirSync(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
