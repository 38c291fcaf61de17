/**
 * fault-engine-killed: two engines share a Manager; one, holding registered pages and a ready
 * ticket, is killed (SIGKILL, no goodbye). The Manager notices: its session ends, its leases go
 * back, its pages are unmapped; the other engine's session, its own ticket and its restores go
 * on unaffected, and it can restore the blocks the killed engine saved.
 */
import type { ScenarioRun } from '../harness/index.js';
import { checkDrained, pageRange, stateIs, storeChain } from './support.js';
import { restoreAndCompare } from './tier-cold-hot-restart.js';

export const run: ScenarioRun = async (ctx) => {
  const m = await ctx.manager();
  const doomed = await ctx.engine(m, { name: 'doomed' });
  const survivor = await ctx.engine(m, { name: 'survivor' });
  const hashes = ctx.hashes('doomed', 4);
  const digests = await storeChain(ctx, doomed, hashes, pageRange(0, 4));
  const own = ctx.hashes('survivor', 2);
  const ownDigests = await storeChain(ctx, survivor, own, pageRange(0, 2));
  const held = await survivor.lookup(own);
  ctx.check(stateIs(await survivor.wait(held, 5000), 'ready'), "the survivor holds a ready ticket on its own blocks");
  const t = await doomed.lookup(hashes);
  ctx.check(stateIs(await doomed.wait(t, 5000), 'ready'), 'the engine to be killed holds a ready ticket');
  const sessions = (await m.status()).sessions.length;
  ctx.check(m.maps(doomed.pageMapping), "the Manager maps the doomed engine's pages");
  await doomed.kill();
  const gone = await ctx.until(async () => (await m.status()).sessions.length === sessions - 1, 5000, 50);
  ctx.check(gone, "the killed engine's session ends");
  ctx.check(await ctx.until(() => !m.maps(doomed.pageMapping), 5000, 50), "the killed engine's pages are unmapped");
  const pinned = (await m.status()).tiers.pinned;
  ctx.check(pinned === 2, "the killed engine's leases went back; the survivor's stay", { pinned });
  await restoreAndCompare(ctx, survivor, held, ownDigests, "the survivor's own ticket");
  const t2 = await survivor.lookup(hashes);
  const r = await survivor.wait(t2, 5000);
  ctx.check(stateIs(r, 'ready') && r?.boundary === 4, 'the survivor finds the blocks the killed engine saved', r);
  if (stateIs(r, 'ready')) await restoreAndCompare(ctx, survivor, t2, digests, 'the survivor', pageRange(24, 4));
  await checkDrained(ctx, m, 'at the end');
};
