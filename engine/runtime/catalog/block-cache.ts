/**
 * The cache proper: which block (a namespace's block hash) is where. A block lives in a DRAM
 * slot, an SSD slot, or both; leases pin it against eviction; a block being copied in from
 * pages is `staging` and counts as pending (never a miss) for lookups. The map holds at most
 * one entry per slot of both tiers; the memory of recent evictions (for "why did this miss")
 * is a fixed-size window.
 */
import { hash } from 'node:crypto';
import { crc32c } from '../../../native/index.js';
import type { Namespace } from '../protocol/index.js';
import type { MissReason } from '../records/index.js';
import type { DramArena } from '../tiers/dram/index.js';
import type { ChecksumKind, SsdTier } from '../tiers/ssd/index.js';

export interface Block {
  key: string;
  state: 'staging' | 'ready';
  dram: number;
  ssd: number;
  crc: number;
  /** How `crc` was computed (CRC-32C for every block staged here; an older index's may be zlib's CRC-32). */
  sum: ChecksumKind;
  length: number;
  /** Leases, write-backs and restores holding the block in place. */
  pins: number;
  /** I/O in progress on the block's DRAM slot (staging, write-back, restore): the slot stays. */
  dramBusy: number;
  /** Staged in DRAM and not yet offered to the SSD tier: DRAM must not drop it yet. */
  awaitingWriteBack: boolean;
  /** The SSD → DRAM read in progress: its DRAM slot holds no valid bytes until it settles. */
  loading?: Promise<LoadVerdict>;
  /** While staging: the save copying it in, so a second save of the key takes its outcome. */
  staging?: Promise<SaveOutcome>;
}

type LoadVerdict = { slot: Buffer; tier: Tier } | { reason: MissReason | 'dram-full' | 'ssd-read-failed' };

export type Tier = 'dram' | 'ssd';

export interface Probe {
  /** Blocks matched from the start of the chain. */
  matched: number;
  tiers: { dram: number; ssd: number };
  /** Whether the first unmatched block is still being saved (the ticket waits). */
  pending: boolean;
  firstMiss: { block: number; reason: MissReason; since?: string } | null;
  /** The matched blocks, in chain order (`matched` of them). */
  blocks: Block[];
}

/** Copies a block's bytes into its DRAM slot; may resolve with their CRC-32C (see `BlockCache.stage`). */
export type Fill = (into: Buffer) => Promise<number | void>;

export type SaveOutcome = 'stored' | 'deduplicated' | 'dram-full' | 'page-read-failed';
/** `ssd-full`: every SSD slot is pinned; `ssd-no-space`: the disk (or a file-size limit) refused the write or its index record. */
export type PersistOutcome = 'persisted' | 'ssd-full' | 'ssd-no-space' | 'ssd-write-failed' | 'dram-only';

interface PendingWrite {
  block: Block;
  slot: number;
}

/** Writes `BlockCache.writeBack` started, for `commitWrites` (opaque to everyone else). */
export interface WriteBack {
  /** Blocks settled without a write (already on SSD, gone, no slot, no SSD tier). */
  readonly outcomes: Map<string, PersistOutcome>;
  readonly writes: PendingWrite[];
  readonly failed: Map<PendingWrite, PersistOutcome>;
  failure: PersistOutcome | null;
}

const NO_SPACE = new Set(['ENOSPC', 'EDQUOT', 'EFBIG']);
const failure = (error: unknown): PersistOutcome => (NO_SPACE.has((error as { code?: string } | null)?.code ?? '') ? 'ssd-no-space' : 'ssd-write-failed');

/** The namespace as the key prefix: model, layout and block size, so caches never mix. */
export { namespaceId } from '../protocol/index.js';

export class BlockCache {
  readonly blocks = new Map<string, Block>();
  private readonly dramOwner: (string | undefined)[];
  /** SSD slots a write-back has taken and not yet committed or given back: never evicted. */
  private readonly ssdReserved: Uint8Array;
  private readonly evicted = new Map<string, string>();
  /** Pending lookups by the staging block they wait on (one entry per waiting ticket at most). */
  private readonly settledListeners = new Map<string, Set<() => void>>();
  /** Whether SSD I/O into DRAM slots uses the ring's registered (fixed) buffers. */
  readonly arenaRegistered: boolean;
  readonly counters = { evictionsDram: 0, evictionsSsd: 0, hitsDram: 0, hitsSsd: 0, misses: 0, checksumMisses: 0 };

  constructor(readonly dram: DramArena, readonly ssd: SsdTier | null, private readonly evictionMemory = 4096, private readonly clock: () => Date = () => new Date()) {
    this.dramOwner = new Array<string | undefined>(dram.slots);
    this.ssdReserved = new Uint8Array(ssd?.slots ?? 0);
    this.arenaRegistered = ssd?.useArena(dram.memory) ?? false;
    if (ssd) for (const [key, e] of ssd.index.entries) this.blocks.set(key, { key, state: 'ready', dram: -1, ssd: e.slot, crc: e.crc, sum: e.sum, length: e.length, pins: 0, dramBusy: 0, awaitingWriteBack: false });
  }

  /** The block's key: sha256 of the namespace id, a newline and the engine's block hash (neither contains a newline). */
  static key(namespace: string, blockHash: string): string {
    return hash('sha256', `${namespace}\n${blockHash}`, 'hex');
  }

  get blockBytes(): number {
    return this.dram.slotBytes;
  }

  /**
   * The longest stored prefix of `keys` and why it stops, with the matched blocks themselves
   * (`blocks`, what `pin` leases: valid in the turn of the probe, as the map may change after it).
   */
  probe(keys: readonly string[]): Probe {
    const tiers = { dram: 0, ssd: 0 };
    const blocks: Block[] = [];
    for (let i = 0; i < keys.length; i++) {
      const b = this.blocks.get(keys[i]!);
      if (!b) {
        const since = this.evicted.get(keys[i]!);
        return { matched: i, tiers, pending: false, firstMiss: since !== undefined ? { block: i, reason: 'evicted', since } : { block: i, reason: 'absent' }, blocks };
      }
      if (b.state === 'staging') return { matched: i, tiers, pending: true, firstMiss: { block: i, reason: 'pending' }, blocks };
      if (b.dram >= 0) tiers.dram++;
      else tiers.ssd++;
      blocks.push(b);
    }
    return { matched: keys.length, tiers, pending: false, firstMiss: null, blocks };
  }

  /**
   * Leases these blocks (a probe's, in its turn). A lease is held on the block object, not its
   * key: given back with `unpin`, it goes to the block it was taken on, even if that block has
   * since been dropped (a checksum mismatch) and its key stored again as a new block.
   */
  pin(blocks: readonly Block[]): void {
    for (let i = 0; i < blocks.length; i++) blocks[i]!.pins++;
  }

  /** Gives back leases `pin` took. */
  unpin(blocks: readonly Block[]): void {
    for (let i = 0; i < blocks.length; i++) {
      const b = blocks[i]!;
      if (b.pins > 0) b.pins--;
    }
  }

  /** Calls `listener` when the staging block `key` settles, so a pending lookup looks again. */
  onSettled(key: string, listener: () => void): () => void {
    let set = this.settledListeners.get(key);
    if (!set) this.settledListeners.set(key, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.settledListeners.get(key) === set) this.settledListeners.delete(key);
    };
  }

  /**
   * Stages a block from pages into DRAM: takes a slot (evicting the least recently used
   * unpinned block), lets `fill` copy the bytes in, checksums them (CRC-32C: `fill` may resolve
   * with the CRC-32C of the bytes it wrote, computed in the same pass as its copy; else it is
   * computed here). A block already stored is deduplicated without copying.
   */
  async stage(key: string, fill: Fill): Promise<SaveOutcome> {
    const existing = this.blocks.get(key);
    if (existing?.staging) {
      // Told "deduplicated" only once the block is really stored; if that save fails, this one
      // stores it.
      const outcome = await existing.staging;
      return outcome === 'stored' ? 'deduplicated' : this.stage(key, fill);
    }
    if (existing) return 'deduplicated';
    const slot = this.takeDram();
    if (slot < 0) return 'dram-full';
    const block: Block = { key, state: 'staging', dram: slot, ssd: -1, crc: 0, sum: 'crc32c', length: this.blockBytes, pins: 0, dramBusy: 1, awaitingWriteBack: this.ssd !== null };
    this.blocks.set(key, block);
    this.dramOwner[slot] = key;
    this.evicted.delete(key);
    const staging = this.fillSlot(block, slot, fill);
    block.staging = staging;
    try {
      return await staging;
    } finally {
      delete block.staging;
    }
  }

  private async fillSlot(block: Block, slot: number, fill: Fill): Promise<SaveOutcome> {
    const key = block.key;
    const into = this.dram.slot(slot);
    let crc: number | void;
    try {
      crc = await fill(into);
    } catch {
      this.blocks.delete(key);
      this.dramOwner[slot] = undefined;
      this.dram.pool.release(slot);
      this.settled(key);
      return 'page-read-failed';
    }
    block.crc = typeof crc === 'number' ? crc : crc32c(into);
    block.state = 'ready';
    block.dramBusy--;
    this.settled(key);
    return 'stored';
  }

  /**
   * DRAM → SSD write-back of staged blocks, then one index commit for all of them
   * (`writeBack`, then `commitWrites`). Never rejects; see those two.
   */
  async persist(keys: readonly string[]): Promise<Map<string, PersistOutcome>> {
    return this.commitWrites([await this.writeBack(keys)]);
  }

  /**
   * Starts the DRAM → SSD writes of staged blocks: takes an SSD slot per block (evicting the
   * least recently used unpinned one), drops the records of reused slots first (their own
   * commit, coalesced with any commit in flight: nothing new points there yet), then writes.
   * Resolves once every write has settled; never rejects. The blocks stay pinned and their
   * slots reserved until `commitWrites` is given the result: every write-back is committed
   * exactly once.
   */
  async writeBack(keys: readonly string[]): Promise<WriteBack> {
    const wb: WriteBack = { outcomes: new Map(), writes: [], failed: new Map(), failure: null };
    const ssd = this.ssd;
    if (!ssd) {
      for (const k of keys) {
        const b = this.blocks.get(k);
        if (b) b.awaitingWriteBack = false;
        wb.outcomes.set(k, 'dram-only');
      }
      return wb;
    }
    // While the data file grows, a save waits for its slots rather than evicting older blocks.
    while (ssd.growing && ssd.pool.freeSlots < keys.length) await ssd.grown();
    const drops: { type: 'drop'; key: string; slot: number; crc: number; length: number }[] = [];
    for (const k of keys) {
      const b = this.blocks.get(k);
      if (b) b.awaitingWriteBack = false;
      if (!b || b.ssd >= 0 || b.dram < 0) {
        wb.outcomes.set(k, 'persisted');
        continue;
      }
      let dropped: string | undefined;
      const slot = ssd.pool.take(
        (s) => this.ssdEvictable(s),
        (s) => {
          dropped = ssd.index.keyAt(s);
          this.evictSsd(s);
        },
      );
      if (slot < 0) {
        wb.outcomes.set(k, 'ssd-full');
        continue;
      }
      b.pins++;
      b.dramBusy++;
      b.ssd = slot;
      this.ssdReserved[slot] = 1;
      wb.writes.push({ block: b, slot });
      if (dropped !== undefined) drops.push({ type: 'drop', key: dropped, slot, crc: 0, length: 0 });
    }
    try {
      // A reused slot's old record is dropped first, in a commit of its own: nothing new points there yet.
      if (drops.length > 0) await ssd.index.commit(drops);
      const results = await Promise.allSettled(wb.writes.map((w) => ssd.write(w.slot, this.dram.slot(w.block.dram))));
      results.forEach((r, i) => r.status === 'rejected' && wb.failed.set(wb.writes[i]!, failure(r.reason)));
    } catch (error) {
      // The drops were not committed: nothing of this batch was written.
      wb.failure = failure(error);
      for (const w of wb.writes) wb.failed.set(w, wb.failure);
    }
    return wb;
  }

  /**
   * Makes write-backs durable: one sync of the data file for all their written blocks, then
   * one index commit of their puts (the bytes are synced before the records that name them).
   * Never rejects: whatever fails (a write, the sync, the commit) is that block's outcome, and
   * every pin, busy count, reservation and slot `writeBack` took is given back on every path.
   */
  async commitWrites(wbs: readonly WriteBack[]): Promise<Map<string, PersistOutcome>> {
    const out = new Map<string, PersistOutcome>();
    for (const wb of wbs) for (const [k, o] of wb.outcomes) out.set(k, o);
    const ssd = this.ssd;
    const writes = wbs.flatMap((wb) => wb.writes);
    if (!ssd || writes.length === 0) return out;
    const failed = new Map<PendingWrite, PersistOutcome>();
    for (const wb of wbs) for (const [w, o] of wb.failed) failed.set(w, o);
    const committed = new Set<PendingWrite>();
    let batchFailure: PersistOutcome = 'ssd-write-failed';
    try {
      const written = writes.filter((w) => !failed.has(w));
      if (written.length > 0) await ssd.sync();
      if (written.length > 0) await ssd.index.commit(written.map((w) => ({ type: 'put' as const, key: w.block.key, slot: w.slot, crc: w.block.crc, length: w.block.length, sum: w.block.sum })));
      for (const w of written) committed.add(w);
    } catch (error) {
      // Every write not committed is failed below, for this reason.
      batchFailure = failure(error);
    } finally {
      for (const w of writes) {
        w.block.pins--;
        w.block.dramBusy--;
        this.ssdReserved[w.slot] = 0;
        if (committed.has(w)) {
          out.set(w.block.key, 'persisted');
          continue;
        }
        w.block.ssd = -1;
        ssd.pool.release(w.slot);
        out.set(w.block.key, failed.get(w) ?? batchFailure);
      }
    }
    return out;
  }

  /**
   * A staged block whose save ended before its write-back (the save failed or was cut short):
   * DRAM may drop it again. Only the save that staged it calls this.
   */
  abandonWriteBack(key: string): void {
    const b = this.blocks.get(key);
    if (b) b.awaitingWriteBack = false;
  }

  /**
   * The block's bytes in DRAM, reading them from the SSD tier first if needed (verified
   * against the index checksum); a reason when they cannot be served. The caller holds a
   * lease, and on success the DRAM slot is busy until it calls `idle(key)`.
   */
  async inDram(key: string): Promise<LoadVerdict> {
    const now = this.inDramNow(key);
    if (now !== null) return now;
    const b = this.blocks.get(key)!;
    if (b.loading) {
      // Another restore is reading this block from SSD: its verdict (checksum included) is ours.
      const verdict = await b.loading;
      if ('reason' in verdict) return verdict;
      return this.inDram(key);
    }
    const ssd = this.ssd;
    if (!ssd || b.ssd < 0) return { reason: 'absent' };
    const slot = this.takeDram();
    if (slot < 0) return { reason: 'dram-full' };
    b.dram = slot;
    this.dramOwner[slot] = key;
    b.dramBusy++;
    const loading = this.load(b, ssd, slot);
    b.loading = loading;
    try {
      return await loading;
    } finally {
      if (b.loading === loading) delete b.loading;
    }
  }

  /**
   * `inDram`'s verdict when it needs no I/O (a DRAM hit, or a block that is not ready), taken
   * now, without a promise: a restore's window of DRAM hits is served in the same turn. Null
   * when the block must be read from SSD (or is being read): ask `inDram`.
   */
  inDramNow(key: string): LoadVerdict | null {
    const b = this.blocks.get(key);
    if (!b || b.state !== 'ready') return { reason: b ? 'pending' : 'absent' };
    if (b.loading || b.dram < 0) return null;
    this.dram.pool.touch(b.dram);
    b.dramBusy++;
    this.counters.hitsDram++;
    return { slot: this.dram.slot(b.dram), tier: 'dram' };
  }

  private async load(b: Block, ssd: SsdTier, slot: number): Promise<LoadVerdict> {
    let good: boolean;
    try {
      good = await ssd.read(b.ssd, this.dram.slot(slot), b.crc, b.length, b.sum);
    } catch {
      b.dramBusy--;
      this.dropDram(b);
      return { reason: 'ssd-read-failed' };
    }
    if (!good) {
      b.dramBusy--;
      this.counters.checksumMisses++;
      this.dropDram(b);
      // A block whose bytes do not match is forgotten, so nothing ever serves it.
      this.forget(b, 'checksum');
      return { reason: 'checksum' };
    }
    ssd.pool.touch(b.ssd);
    this.counters.hitsSsd++;
    return { slot: this.dram.slot(slot), tier: 'ssd' };
  }

  /** The caller's I/O on the block's DRAM slot is over. */
  idle(key: string): void {
    const b = this.blocks.get(key);
    if (b && b.dramBusy > 0) b.dramBusy--;
  }

  usage() {
    const ssd = this.ssd;
    return {
      dram: { slots: this.dram.slots, used: this.dram.pool.inUse, bytes: this.dram.bytes },
      ssd: ssd ? { slots: ssd.slots, usable: ssd.pool.usable, used: ssd.pool.inUse, bytes: ssd.slots * ssd.slotBytes, backend: ssd.backend, checkpointFailures: ssd.index.checkpointFailures } : null,
      blocks: this.blocks.size,
      pinned: [...this.blocks.values()].filter((b) => b.pins > 0).length,
    };
  }

  private takeDram(): number {
    return this.dram.pool.take(
      (s) => {
        const b = this.blocks.get(this.dramOwner[s]!);
        return b === undefined || (b.dramBusy === 0 && b.state === 'ready' && !b.awaitingWriteBack && (b.pins === 0 || b.ssd >= 0));
      },
      (s) => {
        const b = this.blocks.get(this.dramOwner[s]!);
        this.counters.evictionsDram++;
        if (b) {
          b.dram = -1;
          if (b.ssd < 0) this.forget(b, 'evicted');
        }
        this.dramOwner[s] = undefined;
      },
    );
  }

  private dropDram(b: Block): void {
    if (b.dram < 0) return;
    this.dramOwner[b.dram] = undefined;
    this.dram.pool.release(b.dram);
    b.dram = -1;
  }

  private ssdEvictable(slot: number): boolean {
    if (this.ssdReserved[slot] === 1) return false;
    const key = this.ssd!.index.keyAt(slot);
    const b = key === undefined ? undefined : this.blocks.get(key);
    return b === undefined || b.pins === 0;
  }

  private evictSsd(slot: number): void {
    const key = this.ssd!.index.keyAt(slot);
    const b = key === undefined ? undefined : this.blocks.get(key);
    this.counters.evictionsSsd++;
    if (!b) return;
    b.ssd = -1;
    if (b.dram < 0) this.forget(b, 'evicted');
  }

  private forget(b: Block, why: 'evicted' | 'checksum'): void {
    this.blocks.delete(b.key);
    if (b.ssd >= 0 && this.ssd) {
      this.ssd.pool.release(b.ssd);
      void this.ssd.index.commit([{ type: 'drop', key: b.key, slot: b.ssd, crc: 0, length: 0 }]).catch(() => undefined);
      b.ssd = -1;
    }
    if (why === 'evicted') {
      this.evicted.set(b.key, this.clock().toISOString());
      if (this.evicted.size > this.evictionMemory) this.evicted.delete(this.evicted.keys().next().value!);
    }
  }

  private settled(key: string): void {
    const set = this.settledListeners.get(key);
    if (!set) return;
    this.settledListeners.delete(key);
    for (const l of [...set]) l();
  }
}
