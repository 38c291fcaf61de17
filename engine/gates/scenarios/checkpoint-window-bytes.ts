/**
 * checkpoint-window-bytes, under abort and under preemption: a request's recurrent checkpoint
 * blocks and its window blocks are saved (the tiers grow by exactly those blocks); then
 * abort: the engine aborts while the checkpoint's restore is in flight and the window's ticket
 *   waits for its load (its connection goes) — the Manager drains, gives every lease back, keeps exactly the bytes written, and a later
 *   engine restores them byte for byte;
 * preemption: the scheduler preempts the request after its lookups were ready — it releases
 *   both tickets (each lease goes back once: releasing again frees nothing another ticket
 *   holds), and the resumed request finds and restores the same bytes.
 */
import type { CellContext, ScenarioRun } from '../harness/index.js';
import { checkDrained, pageRange, stateIs, storeChain } from './support.js';
import { restoreAndCompare } from './tier-cold-hot-restart.js';

async function used(m: Awaited<ReturnType<CellContext['manager']>>): Promise<{ dram: number; ssd: number }> {
  const s = await m.status();
  return { dram: s.tiers.dram.used, ssd: s.tiers.ssd?.used ?? 0 };
}

export const run: ScenarioRun = async (ctx) => {
  const checkpoints = Number(ctx.params['checkpoints']);
  const window = Number(ctx.params['window']);
  const event = String(ctx.params['event']);
  const m = await ctx.manager();
  const e = await ctx.engine(m, { name: 'request' });
  const ckpt = ctx.hashes('checkpoint', checkpoints);
  const win = ctx.hashes('window', window);
  const before = await used(m);
  const ckptDigests = await storeChain(ctx, e, ckpt, pageRange(0, checkpoints), 'the checkpoint');
  const winDigests = await storeChain(ctx, e, win, pageRange(checkpoints, window), 'the window');
  const written = await used(m);
  const blocks = checkpoints + window;
  ctx.check(written.dram - before.dram === blocks && written.ssd - before.ssd === blocks, `the tiers hold exactly the ${blocks} blocks written (${blocks * m.blockBytes} bytes per tier)`, { before, written });
  const tc = await e.lookup(ckpt);
  const tw = await e.lookup(win);
  const rc = await e.wait(tc, 5000);
  const rw = await e.wait(tw, 5000);
  ctx.check(stateIs(rc, 'ready') && rc?.boundary === checkpoints && stateIs(rw, 'ready') && rw?.boundary === window, 'the checkpoint and the window are found whole', { rc, rw });

  if (event === 'abort') {
    // Aborted mid-load: the checkpoint's restore is in flight, the window's ticket still waits for its load.
    await e.restore(tc, pageRange(16, checkpoints));
    const inFlight = (await m.status()).inFlight.restores;
    ctx.check(inFlight >= 1, "the checkpoint's restore is in flight when the request is aborted", { inFlight });
    await e.close();
  } else {
    const a = await e.release(tc);
    const b = await e.release(tw);
    ctx.check(!('error' in a) && !('error' in b), 'the preempted request releases both tickets', { a, b });
    const holder = await ctx.engine(m, { name: 'holder' });
    const th = await holder.lookup(ckpt);
    ctx.check(stateIs(await holder.wait(th, 5000), 'ready'), 'another ticket leases the checkpoint');
    await e.release(tc);
    const pinned = (await m.status()).tiers.pinned;
    ctx.check(pinned === checkpoints, 'releasing the preempted ticket again frees nothing the other ticket holds', { pinned });
    await holder.release(th);
  }
  await checkDrained(ctx, m, `after the ${event}`, 5000);
  const kept = await used(m);
  ctx.check(kept.dram === written.dram && kept.ssd === written.ssd, `after the ${event} the tiers still hold exactly the bytes written (nothing leaked, nothing lost)`, { written, kept });
  const resumed = event === 'abort' ? await ctx.engine(m, { name: 'resumed' }) : e;
  const t2c = await resumed.lookup(ckpt);
  const t2w = await resumed.lookup(win);
  const r2c = await resumed.wait(t2c, 5000);
  const r2w = await resumed.wait(t2w, 5000);
  ctx.check(stateIs(r2c, 'ready') && r2c?.boundary === checkpoints && stateIs(r2w, 'ready') && r2w?.boundary === window, `the ${event === 'abort' ? 'next engine' : 'resumed request'} finds the checkpoint and the window whole`, { r2c, r2w });
  if (stateIs(r2c, 'ready')) await restoreAndCompare(ctx, resumed, t2c, ckptDigests, 'checkpoint', pageRange(16, checkpoints));
  if (stateIs(r2w, 'ready')) await restoreAndCompare(ctx, resumed, t2w, winDigests, 'window', pageRange(16 + checkpoints, window));
  await checkDrained(ctx, m, 'at the end');
};
