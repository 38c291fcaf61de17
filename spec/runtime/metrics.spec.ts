import assert from 'node:assert/strict';
import { OPCODE } from '../../engine/runtime/index.js';
import { NS, blockBytes, engineClient, lookupBody, pageFile, startManager, tempDir } from './support.js';

const BLOCK = 64 * 1024;

describe('runtime/metrics: Prometheus text over HTTP (prom-client)', function () {
  this.timeout(60_000);

  it('counts hits by tier, misses by reason, saved and restored blocks by outcome, lookup latency, tier slots and bytes, SSD I/O and sessions', async () => {
    const m = await startManager(['--dram', '256k', '--ssd', tempDir('metrics'), '--ssd-size', '1m', '--block-size', '64k', '--metrics', '127.0.0.1:0']);
    const address = m.logs.find((l) => l.event === 'serving')!.metrics as string;
    const pages = pageFile(4, BLOCK);
    const c = await engineClient(m, pages, 4, BLOCK);
    for (const [i, h] of ['m0', 'm1', 'm2'].entries()) pages.write(i, blockBytes(h, BLOCK));
    await c.request(OPCODE.save, { namespace: NS, hashes: ['m0', 'm1', 'm2'], pages: [0, 1, 2] });
    const t = await c.request(OPCODE.lookup, lookupBody(['m0', 'm1', 'm2', 'gone']));
    await c.request(OPCODE.restore, { ticket: t.body.ticket, pages: [3, 2, 1] });
    await c.request(OPCODE.lookup, lookupBody(['nothing']));
    const res = await fetch(`http://${address}/metrics`);
    assert.equal(res.status, 200);
    const text = await res.text();
    const value = (line: string) => {
      const found = text.split('\n').find((l) => l.startsWith(line));
      assert.ok(found, `${line} in:\n${text}`);
      return Number(found.slice(line.length).trim());
    };
    assert.equal(value('orbitkv_lookup_blocks_hit_total{tier="dram"}'), 3);
    assert.equal(value('orbitkv_lookup_misses_total{reason="absent"}'), 2);
    assert.equal(value('orbitkv_lookups_total{outcome="ready"}'), 1);
    assert.equal(value('orbitkv_lookups_total{outcome="miss"}'), 1);
    assert.equal(value('orbitkv_lookup_seconds_count'), 2);
    assert.equal(value('orbitkv_tier_slots{tier="dram",use="total"}'), 4);
    assert.equal(value('orbitkv_tier_slots{tier="ssd",use="used"}'), 3);
    assert.equal(value('orbitkv_tier_slots{tier="ssd",use="usable"}'), 16, 'the SSD file has grown to its size');
    assert.equal(value('orbitkv_ssd_checkpoint_failures'), 0);
    assert.equal(value('orbitkv_tier_bytes{tier="ssd",use="total"}'), 1024 * 1024);
    assert.equal(value('orbitkv_ssd_io_bytes{direction="write"}'), 3 * BLOCK);
    // Counted per block (one inc per outcome with its count).
    assert.equal(value('orbitkv_restore_blocks_total{outcome="restored"}'), 3);
    assert.equal(value('orbitkv_save_blocks_total{outcome="stored"}'), 3);
    assert.equal(value('orbitkv_sessions'), 1);
    assert.equal((await fetch(`http://${address}/other`)).status, 404);
    await c.close();
    await m.stop();
  });
});
