/**
 * tier-cold-hot-restart, per tier (DRAM only; DRAM in front of an SSD tier) and phase:
 * cold: a lookup of an unsaved chain misses, and its save stores every block;
 * hot: after the cold save a lookup hits the whole chain from the cell's tier (for the SSD tier
 *   the chain is first pushed out of DRAM), and the restored page bytes equal the saved ones;
 * restart: the Manager is killed (SIGKILL) and started again: on the SSD tier the chain is
 *   found whole from the durable index and restores byte for byte, while a block whose bytes
 *   were torn on disk is a miss, never served; on the DRAM tier nothing survives and the lookup
 *   is a clean miss. In-flight work and leases drain to zero after each phase.
 */
import { createHash } from 'node:crypto';
import { openSync, readSync, writeSync, closeSync, fstatSync } from 'node:fs';
import type { CellContext, EngineStandIn, ScenarioRun } from '../harness/index.js';
import { blank, checkDrained, pageRange, stateIs, storeChain } from './support.js';

const CHAIN = 8;

export const run: ScenarioRun = async (ctx) => {
  const ssd = ctx.params['tier'] === 'ssd';
  const phase = String(ctx.params['phase']);
  const spec = { ssdBytes: ssd ? 8 * 1024 * 1024 : 0 };
  const m = await ctx.manager(spec);
  const e = await ctx.engine(m);
  const hashes = ctx.hashes('chain', CHAIN);
  const pages = pageRange(0, CHAIN);

  const before = await e.wait(await e.lookup(hashes), 5000);
  ctx.check(stateIs(before, 'miss') && (before?.boundary ?? 0) === 0, 'cold: a lookup of a chain never saved is a miss with boundary 0', before);
  const digests = await storeChain(ctx, e, hashes, pages);
  await checkDrained(ctx, m, 'cold');
  if (phase === 'cold') return;

  if (phase === 'hot') {
    if (ssd) {
      // Push the chain out of DRAM (64 slots) with other blocks, so the hit must come from SSD.
      const filler = pageRange(8, 24);
      for (let round = 0; round < 3; round++) await storeChain(ctx, e, ctx.hashes(`filler${round}`, filler.length), filler, `filler ${round}`);
    }
    const t = await e.lookup(hashes);
    const hit = await e.wait(t, 5000);
    ctx.check(stateIs(hit, 'ready') && hit?.boundary === CHAIN, `hot: the lookup hits all ${CHAIN} blocks`, hit);
    ctx.check((hit?.tiers?.[ssd ? 'ssd' : 'dram'] ?? 0) === CHAIN, `hot: every hit is served from the ${ssd ? 'SSD' : 'DRAM'} tier`, hit?.tiers);
    if (stateIs(hit, 'ready')) await restoreAndCompare(ctx, e, t, digests, 'hot');
    await checkDrained(ctx, m, 'hot');
    return;
  }

  // restart
  const torn = ctx.hashes('torn', 2);
  if (ssd) await storeChain(ctx, e, torn, pageRange(8, 2), 'the chain to tear');
  await e.close();
  await m.stop('SIGKILL');
  if (ssd) ctx.check(tearBlock(m.ssdDataFile!, `${torn[0]}|`), 'restart: the torn block was found in the SSD data file and overwritten');
  await m.start();
  const again = await ctx.engine(m);
  const t = await again.lookup(hashes);
  const after = await again.wait(t, 5000);
  if (!ssd) {
    ctx.check(stateIs(after, 'miss') && (after?.boundary ?? 0) === 0, 'restart: a DRAM-only block does not survive the restart (a clean miss, no stale hit)', after);
    await checkDrained(ctx, m, 'restart');
    return;
  }
  ctx.check(stateIs(after, 'ready') && after?.boundary === CHAIN, 'restart: the whole chain is found again from the durable index', after);
  ctx.check((after?.tiers?.['ssd'] ?? 0) === CHAIN, 'restart: the hits come from the SSD tier (DRAM starts cold)', after?.tiers);
  if (stateIs(after, 'ready')) await restoreAndCompare(ctx, again, t, digests, 'restart');
  // The lookup may still offer the block (its bytes are checked when read); a restore must not deliver them.
  const tt = await again.lookup(torn);
  const tornLookup = await again.wait(tt, 5000);
  if (stateIs(tornLookup, 'ready') && (tornLookup?.boundary ?? 0) > 0) {
    const into = pageRange(24, tornLookup!.boundary!);
    await blank(again, into);
    const blankDigest = await again.digest(into.slice(0, 1));
    const r = await again.restore(tt, into);
    await again.waitLayer(r, 0, 5000);
    const failed = await again.failedBlocks(r);
    ctx.check(failed.includes(0), 'restart: the torn block is reported failed (recompute), not delivered', { failed });
    const got = await again.digest(into.slice(0, 1));
    ctx.check(got[0] === blankDigest[0], 'restart: the torn bytes never reach the page');
  } else {
    ctx.check(true, 'restart: the torn block is a miss, never served');
  }
  const retry = await again.wait(await again.lookup(torn), 5000);
  ctx.check(!stateIs(retry, 'ready') || (retry?.boundary ?? 0) === 0, 'restart: once found torn, the block is forgotten (a later lookup misses it)', retry);
  await checkDrained(ctx, m, 'restart');
};

/** Restores a ready ticket's blocks into blank pages; checks each layer lands and the bytes equal what was saved. */
export async function restoreAndCompare(ctx: CellContext, e: EngineStandIn, ticket: number, digests: string[], what: string, into = pageRange(16, digests.length)): Promise<void> {
  await blank(e, into);
  const r = await e.restore(ticket, into);
  ctx.check(await e.waitLayer(r, 0, 10_000), `${what}: the restore's layer completes`);
  ctx.check((await e.failedBlocks(r)).length === 0, `${what}: no block of the restore failed`);
  const got = await e.digest(into);
  ctx.check(got.every((d, i) => d === digests[i]), `${what}: every restored page equals the saved bytes`, { differ: got.map((d, i) => (d === digests[i] ? null : i)).filter((i) => i !== null) });
}

/** Overwrites the first slot of the data file holding `label`'s bytes; false when none does. */
function tearBlock(file: string, label: string): boolean {
  const fd = openSync(file, 'r+');
  try {
    const size = fstatSync(fd).size;
    const needle = Buffer.from(label.repeat(8));
    const chunk = Buffer.alloc(64 * 1024);
    for (let at = 0; at < size; at += chunk.length) {
      const n = readSync(fd, chunk, 0, chunk.length, at);
      if (chunk.subarray(0, n).indexOf(needle) === 0) {
        const garbage = createHash('sha256').update(label).digest();
        for (let i = 0; i < 64; i++) writeSync(fd, garbage, 0, garbage.length, at + 4096 + i * garbage.length);
        return true;
      }
    }
    return false;
  } finally {
    closeSync(fd);
  }
}
