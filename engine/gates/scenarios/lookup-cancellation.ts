/**
 * lookup-cancellation: a request aborted while its lookup is pending (waiting for a second
 * rank) ends cancelled; its leases go back once (a second engine's lease on the same blocks
 * stays); a late answer (the other rank arriving) does not revive it; releasing it afterwards
 * releases nothing more.
 */
import type { ScenarioRun } from '../harness/index.js';
import { checkDrained, pageRange, stateIs, storeChain } from './support.js';

export const run: ScenarioRun = async (ctx) => {
  const m = await ctx.manager();
  const e = await ctx.engine(m, { name: 'aborting' });
  const other = await ctx.engine(m, { name: 'other' });
  const hashes = ctx.hashes('chain', 4);
  await storeChain(ctx, e, hashes, pageRange(0, 4));
  const keep = await other.lookup(hashes);
  ctx.check(stateIs(await other.wait(keep, 5000), 'ready'), 'another engine holds a ready ticket on the same blocks');
  const request = `cancel-${ctx.namespace.model}`;
  const t = await e.lookup(hashes, { request, rank: 0, worldSize: 2, deadlineMs: Number(ctx.params['deadlineMs']) });
  ctx.check((await e.poll(t)) === null, 'the lookup is pending when the request is aborted');
  const cancelled = await e.cancel(t);
  ctx.check(!('error' in cancelled), 'cancel is accepted', cancelled);
  const after = await e.wait(t, 3000);
  ctx.check(stateIs(after, 'cancelled'), 'the ticket ends cancelled', after);
  const late = await e.lookup(hashes, { request, rank: 1, worldSize: 2, deadlineMs: 600 });
  const lateResult = await e.wait(late, 5000);
  ctx.check(!stateIs(lateResult, 'ready'), 'the other rank arriving late is not given a boundary the aborted rank cannot load', lateResult);
  const still = await e.poll(t);
  ctx.check(stateIs(still, 'cancelled'), 'the late answer does not revive the cancelled ticket', still);
  await e.release(t);
  const pinned = (await m.status()).tiers.pinned;
  ctx.check(pinned === 4, "the cancelled ticket's leases went back once: the other engine's lease on the 4 blocks stays", { pinned });
  await other.release(keep);
  await checkDrained(ctx, m, 'after the cancellation');
};
