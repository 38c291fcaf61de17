/**
 * lookup-timeout: a ticket of a two-rank request whose other rank never answers stays pending
 * (holding leases on what it matched) until its deadline, then resolves to timed out: not before
 * the deadline, every lease given back, and a restore on it refused (the engine recomputes).
 */
import type { ScenarioRun } from '../harness/index.js';
import { checkDrained, pageRange, restoreRefused, stateIs, storeChain } from './support.js';

export const run: ScenarioRun = async (ctx) => {
  const deadlineMs = Number(ctx.params['deadlineMs']);
  const m = await ctx.manager();
  const e = await ctx.engine(m);
  const hashes = ctx.hashes('chain', 4);
  await storeChain(ctx, e, hashes, pageRange(0, 4));
  const started = Date.now();
  const t = await e.lookup(hashes, { request: `timeout-${ctx.namespace.model}`, rank: 0, worldSize: 2, deadlineMs });
  ctx.check((await e.poll(t)) === null, 'before the deadline the ticket is pending (ask again later)');
  const held = (await m.status()).tiers.pinned;
  ctx.check(held >= 4, 'while pending, the matched blocks are leased', { pinned: held });
  const r = await e.wait(t, deadlineMs + 5000);
  const elapsed = Date.now() - started;
  ctx.check(stateIs(r, 'timedOut'), 'past the deadline the ticket resolves to timed out', r);
  // The client gives up on its own a grace period past the deadline (reason no-reply): that
  // would look the same to the engine, but it is the client's safety net, not the Manager's timeout.
  ctx.check(r !== null && (r.reason ?? null) === null, "the Manager's own reply timed it out (not the client giving up on a silent Manager)", r);
  ctx.check(elapsed >= deadlineMs - 50, 'it did not resolve before its deadline', { elapsed, deadlineMs });
  ctx.check((r?.boundary ?? 0) === 0, 'a timed-out ticket offers no blocks (recompute)', r);
  const restore = await restoreRefused(e, t, [8]);
  ctx.check(restore.refused, 'a restore on the timed-out ticket is refused', restore.detail);
  await checkDrained(ctx, m, 'after the timeout');
};
