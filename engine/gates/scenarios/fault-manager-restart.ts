/**
 * fault-manager-restart: an engine holds a ready ticket (leases) when the Manager is killed
 * (SIGKILL) and started again on the same socket and SSD folder. The stale ticket is refused
 * (a restore on it fails, delivering nothing; releasing it frees nothing), the new Manager has
 * recovered the durable index (the chain is found whole and restores byte for byte), and the
 * same engine process goes on through its client without reusing stale state.
 */
import type { ScenarioRun } from '../harness/index.js';
import { blank, checkDrained, pageRange, restoreRefused, stateIs, storeChain } from './support.js';
import { restoreAndCompare } from './tier-cold-hot-restart.js';

export const run: ScenarioRun = async (ctx) => {
  const m = await ctx.manager();
  const e = await ctx.engine(m);
  const hashes = ctx.hashes('chain', 6);
  const digests = await storeChain(ctx, e, hashes, pageRange(0, 6));
  const stale = await e.lookup(hashes);
  ctx.check(stateIs(await e.wait(stale, 5000), 'ready'), 'before the restart the engine holds a ready ticket');
  await m.restart('SIGKILL');
  const status = await m.status();
  ctx.check(status.recovery !== null, 'the restarted Manager recovered its SSD index', status.recovery);
  ctx.check(status.tiers.pinned === 0 && status.inFlight.tickets === 0, 'no lease or ticket of the old process survives', { pinned: status.tiers.pinned, tickets: status.inFlight.tickets });
  const into = pageRange(16, 6);
  await blank(e, into);
  const blankDigests = await e.digest(into);
  const { refused, detail: restore } = await restoreRefused(e, stale, into);
  ctx.check(refused, 'a restore on the stale ticket is refused', restore);
  ctx.check((await e.digest(into)).every((d, i) => d === blankDigests[i]), 'the stale restore delivered no byte');
  await e.release(stale);
  const t = await e.lookup(hashes);
  const r = await e.wait(t, 10_000);
  ctx.check(stateIs(r, 'ready') && r?.boundary === 6 && (r?.tiers?.['ssd'] ?? 0) === 6, 'the same engine reconnects and finds the chain whole from the recovered index', r);
  if (stateIs(r, 'ready')) await restoreAndCompare(ctx, e, t, digests, 'after the restart');
  await checkDrained(ctx, m, 'at the end');
};
