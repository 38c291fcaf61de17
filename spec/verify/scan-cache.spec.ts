import { strict as assert } from 'node:assert';
import { chmodSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type VerifyReport, verifyEngine } from '../../engine/verify/index.js';
import { checkout, embeddedRegistry, removeCheckouts, scratchDir } from './checkout.js';

/** A report without the cache's own counters: what a user acts on. */
function results(r: VerifyReport): Omit<VerifyReport, 'scanCache'> {
  const { scanCache: _stats, ...rest } = r;
  return rest;
}

async function run(source: string, cacheDir?: string): Promise<VerifyReport> {
  return verifyEngine({ registry: embeddedRegistry(), engine: 'sglang', source, threads: 0, ...(cacheDir ? { cacheDir } : {}) });
}

describe('verify: the symbol-table cache', function () {
  after(removeCheckouts);

  it('never changes a result: cold, cached, after a bump of one file and after a revert, each equal to a run without cache', async function () {
    const source = checkout('sglang-0.5.21');
    const cache = scratchDir('okv-scan-cache-');
    const cold = await run(source);
    const first = await run(source, cache);
    assert.deepEqual(first.scanCache, { reused: 0, parsed: cold.scanned });
    assert.deepEqual(results(first), cold);
    const warm = await run(source, cache);
    assert.deepEqual(warm.scanCache, { reused: cold.scanned, parsed: 0 });
    assert.deepEqual(results(warm), cold);
    // an upstream bump of one file: only that file is parsed, and the result moves with it
    const file = join(source, 'python/sglang/srt/disaggregation/decode.py');
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.replace('        release_kv_cache(decode_req.req, self.tree_cache, is_insert=False)\n', '        self.tree_cache.dec_lock_ref(decode_req.req.last_node)\n'));
    const bumped = await run(source, cache);
    assert.deepEqual(bumped.scanCache, { reused: cold.scanned - 1, parsed: 1 });
    const bumpedCold = await run(source);
    assert.deepEqual(results(bumped), bumpedCold);
    assert.equal(bumped.assertions.find((a) => a.contract === 'gap.sglang.deferred-release-timeout')?.outcome, 'no-longer-holds');
    // back to the old bytes: the old table is still there
    writeFileSync(file, text);
    const reverted = await run(source, cache);
    assert.deepEqual(reverted.scanCache, { reused: cold.scanned, parsed: 0 });
    assert.deepEqual(results(reverted), cold);
  });

  it('ignores a damaged or foreign shard and rewrites it', async function () {
    const source = checkout('sglang-0.5.21');
    const cache = scratchDir('okv-scan-cache-');
    const cold = await run(source, cache);
    const [key] = readdirSync(join(cache, 'verify'));
    const shards = readdirSync(join(cache, 'verify', key!));
    writeFileSync(join(cache, 'verify', key!, shards[0]!), '{"key": "tr');
    // a table filed under another file's hash is not trusted: each table carries its own hash
    const read = (name: string) => JSON.parse(readFileSync(join(cache, 'verify', key!, name), 'utf8')) as { key: string; tables: Record<string, { sha256: string }> };
    const target = read(shards[1]!);
    const donor = read(shards[2]!);
    const [victim] = Object.keys(target.tables);
    target.tables[victim!] = Object.values(donor.tables)[0]!;
    writeFileSync(join(cache, 'verify', key!, shards[1]!), JSON.stringify(target));
    const again = await run(source, cache);
    assert.deepEqual(results(again), results(cold));
    assert.ok(again.scanCache!.parsed >= 2);
    assert.equal((await run(source, cache)).scanCache?.parsed, 0, 'rewritten');
  });

  it('keys tables by the scan options too, and a cache it cannot write is a warning (OKV6015), not a different result', async function () {
    const source = checkout('sglang-0.5.21');
    const cache = scratchDir('okv-scan-cache-');
    const cold = await run(source, cache);
    const vllmish = await verifyEngine({ registry: embeddedRegistry(), engine: 'vllm', source: checkout('vllm-0.31.0'), threads: 0, cacheDir: cache });
    assert.equal(vllmish.scanCache?.reused, 0, 'another registry scope, another key');
    assert.equal(readdirSync(join(cache, 'verify')).length, 2);
    const locked = scratchDir('okv-scan-cache-');
    chmodSync(locked, 0o500);
    try {
      const r = await run(source, locked);
      if (process.getuid?.() !== 0) {
        assert.deepEqual(r.diagnostics.map((d) => d.code), ['OKV6015']);
        assert.deepEqual({ ...results(r), diagnostics: [] }, { ...results(cold), diagnostics: [] });
      }
    } finally {
      chmodSync(locked, 0o700);
    }
  });
});
