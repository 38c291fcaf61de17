import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, statSync, writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DramArena } from '../../engine/runtime/tiers/dram/index.js';
import { SlotPool } from '../../engine/runtime/tiers/slots/index.js';
import { SsdIndex, RECORD_BYTES, encodeRecord } from '../../engine/runtime/tiers/ssd/index/index.js';
import { SsdTier } from '../../engine/runtime/tiers/ssd/index.js';
import { crc32 } from 'node:zlib';
import { adjustExternalMemory, allocAligned, crc32c } from '../../native/index.js';
import { tempDir } from './support.js';

const key = (n: number) => n.toString(16).padStart(64, '0');

describe('runtime/tiers: slots and the SSD index', () => {
  it('a DRAM arena is counted once in what V8 counts as external memory; held for the process it leaves that count, and goes back into it once, when it is let go', () => {
    const MiB = 1024 * 1024;
    // V8's own count, the one its collection heuristics weigh (adding 0 reads it).
    const external = () => adjustExternalMemory(0);
    const before = external();
    const arena = new DramArena(MiB, 64);
    const counted = external();
    assert.ok(counted - before >= 60 * MiB && counted - before < 70 * MiB, `the arena is counted once as it is made (${counted - before} bytes)`);
    const retrack = arena.untrackFromV8();
    assert.ok(counted - external() >= 60 * MiB, `taken out (${counted - external()} bytes less)`);
    retrack();
    retrack();
    assert.ok(Math.abs(external() - counted) < 4 * MiB, `put back once (${external() - counted} bytes from where it was)`);
  });

  it('a slot pool evicts the least recently used slot its owner allows, and never grows', () => {
    const pool = new SlotPool(3);
    const evicted: number[] = [];
    const take = (ok: (s: number) => boolean = () => true) => pool.take(ok, (s) => evicted.push(s));
    const [a, b, c] = [take(), take(), take()];
    pool.touch(a);
    assert.equal(take(), b, 'b is least recently used');
    assert.equal(take((s) => s !== c), a, 'c is pinned, so a goes');
    assert.equal(take(() => false), -1, 'every slot pinned: none');
    assert.deepEqual(evicted, [b, a]);
    pool.release(c);
    assert.equal(pool.inUse, 2);
    assert.equal(take(), c, 'a released slot is reused before evicting');
  });

  it('a pool of which only some slots are usable takes none beyond them until they are granted, lower ones first', () => {
    const pool = new SlotPool(4, 1);
    const evicted: number[] = [];
    assert.equal(pool.take(() => false, (s) => evicted.push(s)), 0);
    assert.equal(pool.take(() => false, (s) => evicted.push(s)), -1, 'slot 1 is not usable yet');
    pool.grant(3);
    pool.release(0);
    assert.deepEqual([pool.usable, pool.freeSlots], [3, 3]);
    assert.deepEqual([0, 1, 2].map(() => pool.take(() => false, () => undefined)), [0, 1, 2]);
    assert.deepEqual(evicted, []);
  });

  it('the SSD data file grows off the event loop: the tier opens at once, its slots usable as the file reaches them', async () => {
    const dir = tempDir('grow');
    const tier = new SsdTier({ dir, slotBytes: 64 * 1024, slots: 64 });
    assert.equal(tier.growing, true);
    assert.ok(tier.pool.usable < 64, 'nothing was written before the constructor returned');
    const p = await tier.preallocation;
    assert.deepEqual([p.bytes, p.error, tier.growing, tier.pool.usable], [64 * 64 * 1024, null, false, 64]);
    assert.equal(p.method, 'fallocate+zeros', 'the room was reserved first, with fallocate(2) on a pool thread');
    assert.equal(p.reserveRefused, undefined, 'nothing refused it');
    assert.equal(statSync(join(dir, 'blocks.dat')).size, 64 * 64 * 1024);
    await tier.close();
    const again = new SsdTier({ dir, slotBytes: 64 * 1024, slots: 64 });
    assert.deepEqual([again.growing, again.pool.usable, (await again.preallocation).method], [false, 64, 'present']);
    await again.close();
  });

  it('a commit is answered before the checkpoint it triggers is written; later commits wait for it', async () => {
    const dir = tempDir('index-async');
    const idx = new SsdIndex(dir, 8, 2);
    await idx.commit([{ type: 'put', key: key(1), slot: 0, crc: 1, length: 1 }, { type: 'put', key: key(2), slot: 1, crc: 2, length: 1 }]);
    assert.equal(statSync(join(dir, 'index.journal')).size, 2 * RECORD_BYTES, 'the checkpoint has not run yet');
    await idx.commit([{ type: 'put', key: key(3), slot: 2, crc: 3, length: 1 }]);
    assert.equal(statSync(join(dir, 'index.journal')).size, RECORD_BYTES, 'the checkpoint ran before this commit, which then went to an empty journal');
    await idx.close();
    const again = new SsdIndex(dir, 8, 2);
    assert.deepEqual([again.recovery.checkpointSeq, again.recovery.entries], [2, 3]);
    await again.close();
  });

  it('a checkpoint that cannot be written loses nothing: commits are answered, the journal keeps every record', async () => {
    const dir = tempDir('index-cp-fail');
    // Where the checkpoint is written first is a folder: every checkpoint fails (EISDIR).
    mkdirSync(join(dir, 'index.checkpoint.tmp'));
    const idx = new SsdIndex(dir, 8, 2);
    for (let i = 1; i <= 5; i++) await idx.commit([{ type: 'put', key: key(i), slot: i, crc: i, length: 1 }]);
    assert.equal(await idx.checkpoint(), false);
    assert.ok(idx.checkpointFailures >= 2, `${idx.checkpointFailures} failures counted`);
    await idx.close();
    const again = new SsdIndex(dir, 8, 2);
    assert.deepEqual([again.recovery.entries, again.recovery.journalRecords], [5, 5]);
    await again.close();
  });

  it('the index keeps committed records across reopen, through a checkpoint, and cuts a torn tail', async () => {
    const dir = tempDir('index');
    const idx = new SsdIndex(dir, 8, 3);
    await idx.commit([{ type: 'put', key: key(1), slot: 0, crc: 11, length: 4096 }, { type: 'put', key: key(2), slot: 1, crc: 22, length: 4096 }]);
    await idx.commit([{ type: 'put', key: key(3), slot: 2, crc: 33, length: 4096 }]); // third record: a checkpoint is queued behind it
    await idx.settled();
    assert.equal(statSync(join(dir, 'index.journal')).size, 0);
    await idx.commit([{ type: 'drop', key: key(1), slot: 0, crc: 0, length: 0 }, { type: 'put', key: key(4), slot: 0, crc: 44, length: 4096 }]);
    await idx.close();
    appendFileSync(join(dir, 'index.journal'), Buffer.alloc(RECORD_BYTES - 1, 7));
    const again = new SsdIndex(dir, 8, 100);
    assert.deepEqual(again.recovery, { entries: 3, tornBytes: RECORD_BYTES - 1, checkpointSeq: 3, journalRecords: 2 });
    assert.deepEqual([...again.entries.keys()].sort(), [key(2), key(3), key(4)]);
    assert.equal(again.lookup(key(4))?.slot, 0);
    assert.equal(again.keyAt(0), key(4));
    await again.close();
  });

  it('a checkpoint asked for while a batch is being written waits for it: reopened, the batch is there', async () => {
    const dir = tempDir('index');
    const idx = new SsdIndex(dir, 8, 1_000);
    await idx.commit([{ type: 'put', key: key(1), slot: 0, crc: 11, length: 4096 }]);
    const writing = idx.commit([{ type: 'put', key: key(2), slot: 1, crc: 22, length: 4096 }]);
    // The batch has its sequence number and its journal write under way.
    await new Promise((r) => setImmediate(r));
    const checkpointed = idx.checkpoint();
    await Promise.all([writing, checkpointed]);
    await idx.close();
    const reopened = new SsdIndex(dir, 8, 1_000);
    assert.deepEqual([reopened.lookup(key(1))?.slot, reopened.lookup(key(2))?.slot], [0, 1]);
    await reopened.close();
  });

  it('records after a sequence number that does not increase are a failed commit\'s leftovers: replay stops there and cuts them', async () => {
    const dir = tempDir('index-leftover');
    // What a commit that failed part way leaves: committed [1], a failed batch [2,3,4] written
    // but never applied, then the next batch [5] written over its first record.
    const journal = Buffer.alloc(4 * RECORD_BYTES);
    const records = [{ seq: 1, k: 1, slot: 0 }, { seq: 5, k: 5, slot: 1 }, { seq: 3, k: 3, slot: 2 }, { seq: 4, k: 4, slot: 1 }];
    records.forEach((r, i) => encodeRecord({ type: 'put', key: key(r.k), slot: r.slot, crc: r.k, length: 4096, seq: r.seq }, journal, i * RECORD_BYTES));
    writeFileSync(join(dir, 'index.journal'), journal);
    const idx = new SsdIndex(dir, 8, 100);
    assert.deepEqual([1, 5, 3, 4].map((k) => idx.lookup(key(k))?.slot), [0, 1, undefined, undefined]);
    assert.equal(idx.recovery.tornBytes, 2 * RECORD_BYTES);
    assert.equal(statSync(join(dir, 'index.journal')).size, 2 * RECORD_BYTES);
    await idx.close();
  });

  it('a record whose checksum fails ends the replay there: nothing after a torn record is trusted', async () => {
    const dir = tempDir('index-flip');
    const idx = new SsdIndex(dir, 8, 100);
    await idx.commit([{ type: 'put', key: key(1), slot: 0, crc: 1, length: 1 }]);
    await idx.commit([{ type: 'put', key: key(2), slot: 1, crc: 2, length: 1 }]);
    await idx.commit([{ type: 'put', key: key(3), slot: 2, crc: 3, length: 1 }]);
    await idx.close();
    const file = join(dir, 'index.journal');
    const bytes = readFileSync(file);
    bytes[RECORD_BYTES + 20] = bytes[RECORD_BYTES + 20]! ^ 1;
    writeFileSync(file, bytes);
    const again = new SsdIndex(dir, 8, 100);
    assert.deepEqual([...again.entries.keys()], [key(1)]);
    assert.equal(again.recovery.tornBytes, 2 * RECORD_BYTES);
    await again.close();
  });

  it('a damaged checkpoint refuses to open rather than guess', async () => {
    const dir = tempDir('index-cp');
    const idx = new SsdIndex(dir, 8, 1);
    await idx.commit([{ type: 'put', key: key(1), slot: 0, crc: 1, length: 1 }]);
    await idx.close();
    const file = join(dir, 'index.checkpoint');
    const bytes = readFileSync(file);
    bytes[bytes.length - 3] = bytes[bytes.length - 3]! ^ 0xff;
    writeFileSync(file, bytes);
    assert.throws(() => new SsdIndex(dir, 8, 1), (e: NodeJS.ErrnoException) => e.code === 'ECHECKPOINT');
  });
});

describe('runtime/tiers: block checksums and group commit', () => {
  it('a block is verified with the checksum its record names: CRC-32C now, zlib CRC-32 for records written before; a mismatch is false', async () => {
    const dir = tempDir('checksum-kinds');
    const ssd = new SsdTier({ dir, slotBytes: 4096, slots: 4 });
    await ssd.preallocation;
    const block = allocAligned(4096);
    block.fill(0x3c);
    await ssd.write(0, block);
    await ssd.sync();
    const into = allocAligned(4096);
    assert.equal(await ssd.read(0, into, crc32c(block), 4096, 'crc32c'), true);
    assert.equal(await ssd.read(0, into, crc32(block) >>> 0, 4096, 'crc32'), true);
    assert.equal(await ssd.read(0, into, crc32(block) >>> 0, 4096, 'crc32c'), false, 'the other kind\'s value does not pass');
    assert.equal(await ssd.read(0, into, crc32c(block) ^ 1, 4096, 'crc32c'), false);
    // The kind travels in the record, through the journal and a checkpoint: an old record (kind byte 0) reads as CRC-32.
    await ssd.index.commit([{ type: 'put', key: key(1), slot: 0, crc: crc32c(block), length: 4096 }]);
    const journal = join(dir, 'index.journal');
    const old = Buffer.alloc(RECORD_BYTES);
    encodeRecord({ type: 'put', key: key(2), slot: 1, crc: 7, length: 4096, seq: 2, sum: 'crc32' }, old);
    assert.equal(old[5], 0, 'a CRC-32 record has the zero byte records had before the kind');
    appendFileSync(journal, old);
    await ssd.close();
    const again = new SsdTier({ dir, slotBytes: 4096, slots: 4 });
    assert.equal(again.index.lookup(key(1))?.sum, 'crc32c');
    assert.equal(again.index.lookup(key(2))?.sum, 'crc32');
    assert.equal(await again.index.checkpoint(), true);
    await again.close();
    const third = new SsdTier({ dir, slotBytes: 4096, slots: 4 });
    assert.deepEqual([third.index.lookup(key(1))?.sum, third.index.lookup(key(2))?.sum], ['crc32c', 'crc32'], 'a checkpoint keeps each kind');
    await third.close();
  });

  it('batches asked for while a commit runs go out together in the next write, in call order, each answered once durable', async () => {
    const dir = tempDir('group-commit-index');
    mkdirSync(dir, { recursive: true });
    const idx = new SsdIndex(dir, 16, 1000);
    const writes: number[] = [];
    const write = (idx as unknown as { write: (c: unknown[]) => Promise<void> }).write.bind(idx);
    (idx as unknown as { write: (c: unknown[]) => Promise<void> }).write = (c) => (writes.push(c.length), write(c));
    const first = idx.commit([{ type: 'put', key: key(1), slot: 0, crc: 1, length: 1 }]);
    await new Promise((r) => setImmediate(r));
    // The first is being written; these three wait for it and then share one write.
    const rest = [2, 3, 4].map((n) => idx.commit([{ type: 'put', key: key(n), slot: n, crc: n, length: 1 }, ...(n === 3 ? [{ type: 'drop' as const, key: key(2), slot: 2, crc: 0, length: 0 }] : [])]));
    await Promise.all([first, ...rest]);
    assert.deepEqual(writes, [1, 4], 'one write for the first, one for the three that waited');
    await idx.close();
    const again = new SsdIndex(dir, 16, 1000);
    assert.deepEqual([1, 2, 3, 4].map((n) => again.lookup(key(n)) !== undefined), [true, false, true, true], 'applied in call order (3 drops 2)');
    await again.close();
  });
});
