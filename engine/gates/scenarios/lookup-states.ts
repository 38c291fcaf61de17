/**
 * lookup-states, per prefix (cold: nothing stored; partial: the first half; full: all): two
 * ranks look up one request; the first rank's ticket stays pending (the client polls and gets
 * "ask again later", never a miss) until the second rank reports, then both get the same
 * answer: a miss at boundary 0, the stored half, or the whole chain, and a restore of the
 * boundary's pages delivers the saved bytes.
 */
import type { ScenarioRun } from '../harness/index.js';
import { checkDrained, pageRange, stateIs, storeChain } from './support.js';
import { restoreAndCompare } from './tier-cold-hot-restart.js';

export const run: ScenarioRun = async (ctx) => {
  const blocks = Number(ctx.params['blocks']);
  const stored = Number(ctx.params['stored']);
  const m = await ctx.manager();
  const rank0 = await ctx.engine(m, { name: 'rank0' });
  const rank1 = await ctx.engine(m, { name: 'rank1' });
  const hashes = ctx.hashes('chain', blocks);
  const digests = stored > 0 ? await storeChain(ctx, rank0, hashes.slice(0, stored), pageRange(0, stored)) : [];
  const request = `states-${ctx.namespace.model}`;
  const t0 = await rank0.lookup(hashes, { request, rank: 0, worldSize: 2, deadlineMs: 8000 });
  const early = await rank0.poll(t0);
  await ctx.sleep(250);
  const later = await rank0.poll(t0);
  ctx.check(early === null && later === null, 'a ticket waiting for the other rank is pending (poll: ask again later), not a miss', { early, later });
  const t1 = await rank1.lookup(hashes, { request, rank: 1, worldSize: 2, deadlineMs: 8000 });
  const r0 = await rank0.wait(t0, 5000);
  const r1 = await rank1.wait(t1, 5000);
  if (stored === 0) {
    ctx.check(stateIs(r0, 'miss') && stateIs(r1, 'miss'), 'cold: both ranks get a miss', { r0, r1 });
    ctx.check((r0?.boundary ?? 0) === 0 && (r1?.boundary ?? 0) === 0, 'cold: the boundary is 0', { r0, r1 });
  } else {
    ctx.check(stateIs(r0, 'ready') && stateIs(r1, 'ready'), `${stored < blocks ? 'partial' : 'full'}: both ranks get a ready ticket`, { r0, r1 });
    ctx.check(r0?.boundary === stored && r1?.boundary === stored, `the boundary is the ${stored} stored blocks`, { r0, r1 });
    if (stateIs(r0, 'ready') && r0?.boundary === stored) await restoreAndCompare(ctx, rank0, t0, digests, 'rank 0');
    if (stateIs(r1, 'ready')) await rank1.release(t1);
  }
  await checkDrained(ctx, m, 'after the lookups');
};
