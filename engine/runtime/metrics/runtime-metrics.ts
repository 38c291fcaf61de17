/**
 * Prometheus metrics (prom-client, one registry per Manager, never the global one): tier
 * bytes and slots, hits and misses by tier, lookup latency, I/O bytes and errors, evictions,
 * sessions. Gauges read the cache when scraped, so the hot path only bumps counters.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { BlockCache } from '../catalog/index.js';
import { LabelTally } from './label-tally.js';

export class RuntimeMetrics {
  readonly registry = new Registry();
  /** The lookup path's counters: tallied as plain numbers, handed to prom-client at scrape (see label-tally.ts). */
  readonly lookups: LabelTally<'outcome'>;
  readonly blockHits: LabelTally<'tier'>;
  readonly blockMisses: LabelTally<'reason'>;
  readonly lookupLatency: Histogram;
  readonly saves: Counter<'outcome'>;
  readonly restores: Counter<'outcome'>;
  readonly sessions: Gauge;
  readonly connectionsRefused: Counter<'reason'>;

  constructor(cache: BlockCache, sessions: () => number) {
    const registers = [this.registry];
    this.lookups = new LabelTally({ name: 'orbitkv_lookups_total', help: 'Lookup tickets by how they left pending', label: 'outcome', registers });
    this.blockHits = new LabelTally({ name: 'orbitkv_lookup_blocks_hit_total', help: 'Blocks matched by lookups, by tier', label: 'tier', registers });
    this.blockMisses = new LabelTally({ name: 'orbitkv_lookup_misses_total', help: 'Lookups whose chain stopped matching, by reason', label: 'reason', registers });
    this.lookupLatency = new Histogram({ name: 'orbitkv_lookup_seconds', help: 'Time from lookup request to reply', buckets: [25e-6, 50e-6, 100e-6, 250e-6, 500e-6, 1e-3, 5e-3, 25e-3, 0.1, 1], registers });
    this.saves = new Counter({ name: 'orbitkv_save_blocks_total', help: 'Blocks saved, by outcome', labelNames: ['outcome'], registers });
    this.restores = new Counter({ name: 'orbitkv_restore_blocks_total', help: 'Blocks restored, by outcome', labelNames: ['outcome'], registers });
    this.connectionsRefused = new Counter({ name: 'orbitkv_connections_refused_total', help: 'Connections refused or closed for a protocol fault, by reason', labelNames: ['reason'], registers });
    this.sessions = new Gauge({ name: 'orbitkv_sessions', help: 'Connected engine sessions', registers, collect() { this.set(sessions()); } });
    const usage = () => cache.usage();
    new Gauge({ name: 'orbitkv_tier_slots', help: 'Slots per tier', labelNames: ['tier', 'use'], registers, collect() {
      const u = usage();
      this.set({ tier: 'dram', use: 'total' }, u.dram.slots);
      this.set({ tier: 'dram', use: 'used' }, u.dram.used);
      if (u.ssd) { this.set({ tier: 'ssd', use: 'total' }, u.ssd.slots); this.set({ tier: 'ssd', use: 'used' }, u.ssd.used); this.set({ tier: 'ssd', use: 'usable' }, u.ssd.usable); }
    } });
    new Gauge({ name: 'orbitkv_ssd_checkpoint_failures', help: 'SSD index checkpoints that could not be written since start (the journal kept their records)', registers, collect() {
      this.set(cache.ssd?.index.checkpointFailures ?? 0);
    } });
    new Gauge({ name: 'orbitkv_tier_bytes', help: 'Bytes per tier', labelNames: ['tier', 'use'], registers, collect() {
      const u = usage();
      this.set({ tier: 'dram', use: 'total' }, u.dram.bytes);
      this.set({ tier: 'dram', use: 'used' }, u.dram.used * cache.blockBytes);
      if (u.ssd) { this.set({ tier: 'ssd', use: 'total' }, u.ssd.bytes); this.set({ tier: 'ssd', use: 'used' }, u.ssd.used * cache.blockBytes); }
    } });
    new Gauge({ name: 'orbitkv_evictions', help: 'Blocks evicted since start, by tier', labelNames: ['tier'], registers, collect() {
      this.set({ tier: 'dram' }, cache.counters.evictionsDram);
      this.set({ tier: 'ssd' }, cache.counters.evictionsSsd);
    } });
    new Gauge({ name: 'orbitkv_ssd_io_bytes', help: 'SSD tier bytes moved since start', labelNames: ['direction'], registers, collect() {
      const c = cache.ssd?.counters;
      this.set({ direction: 'read' }, c?.readBytes ?? 0);
      this.set({ direction: 'write' }, c?.writeBytes ?? 0);
    } });
    new Gauge({ name: 'orbitkv_ssd_io_errors', help: 'SSD tier I/O errors and checksum mismatches since start', labelNames: ['kind'], registers, collect() {
      const c = cache.ssd?.counters;
      this.set({ kind: 'read' }, c?.readErrors ?? 0);
      this.set({ kind: 'write' }, c?.writeErrors ?? 0);
      this.set({ kind: 'checksum' }, c?.checksumMisses ?? 0);
    } });
  }
}
