/**
 * fault-expired-result: a ready lookup whose result the engine never collects (no restore, no
 * release) expires after the Manager's lease: its leases go back exactly once (another
 * engine's lease on the same blocks stays), and the engine, coming back late, gets a terminal
 * failure for the restore (recompute) within a bound, never a hang.
 */
import type { ScenarioRun } from '../harness/index.js';
import { checkDrained, pageRange, restoreRefused, stateIs, storeChain } from './support.js';

export const run: ScenarioRun = async (ctx) => {
  const m = await ctx.manager();
  const leaseMs = m.spec.leaseMs ?? 30_000;
  const e = await ctx.engine(m, { name: 'forgetful' });
  const hashes = ctx.hashes('chain', 4);
  await storeChain(ctx, e, hashes, pageRange(0, 4));
  const t = await e.lookup(hashes);
  ctx.check(stateIs(await e.wait(t, 5000), 'ready'), 'the lookup is ready (its result waits to be collected)');
  ctx.check((await m.status()).tiers.pinned === 4, 'the uncollected result leases its blocks');
  const expired = await ctx.until(async () => (await m.status()).tiers.pinned === 0, leaseMs * 4 + 2000, 50);
  ctx.check(expired, 'after the lease the uncollected result expires and its leases go back');
  await checkDrained(ctx, m, 'after the expiry');
  const started = Date.now();
  const { refused: terminal, detail: restore } = await restoreRefused(e, t, pageRange(16, 4));
  ctx.check(terminal, 'collecting the expired result is a terminal failure (the engine recomputes)', restore);
  ctx.check(Date.now() - started < 5000, 'the failure comes within 5 s, not a hang', { ms: Date.now() - started });
  const again = await e.lookup(hashes);
  const r = await e.wait(again, 5000);
  ctx.check(stateIs(r, 'ready') && r?.boundary === 4, 'the blocks themselves stay stored and a new lookup finds them', r);
  await e.release(again);
  await e.release(t);
  await checkDrained(ctx, m, 'at the end');
};
