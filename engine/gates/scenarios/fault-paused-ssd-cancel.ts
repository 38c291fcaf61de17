/**
 * fault-paused-ssd-cancel: the Manager runs with SSD read completions held back (fault
 * injection). Once other blocks pushed them out of DRAM, an engine restores blocks that must come
 * from the SSD tier, and aborts (its connection goes) while the reads are held. Until the held reads
 * complete, the Manager keeps the engine's pages mapped and the restore counted in flight; once
 * they complete, the late bytes are discarded (never copied into the freed pages), the pages are
 * unmapped, the leases and the in-flight count return to zero, and the blocks still serve.
 */
import type { ScenarioRun } from '../harness/index.js';
import { blank, checkDrained, pageRange, stateIs, storeChain } from './support.js';
import { restoreAndCompare } from './tier-cold-hot-restart.js';

export const run: ScenarioRun = async (ctx) => {
  const m = await ctx.manager();
  const holdMs = m.spec.faults?.['ssd-read-hold-ms'] ?? 0;
  ctx.check(holdMs > 0, 'the Manager holds SSD read completions back (fault injection)', m.spec);
  const first = await ctx.engine(m);
  const hashes = ctx.hashes('chain', 4);
  const digests = await storeChain(ctx, first, hashes, pageRange(0, 4));
  // Push the chain out of DRAM (64 slots) with other blocks: its restore must read the SSD tier.
  const filler = pageRange(8, 24);
  for (let round = 0; round < 3; round++) await storeChain(ctx, first, ctx.hashes(`filler${round}`, filler.length), filler, `filler ${round}`);
  await first.close();
  const e = await ctx.engine(m, { name: 'aborting' });
  const t = await e.lookup(hashes);
  const hit = await e.wait(t, 5000);
  ctx.check(stateIs(hit, 'ready') && (hit?.tiers?.['ssd'] ?? 0) === 4, 'the blocks are found on the SSD tier only', hit);
  const into = pageRange(16, 4);
  await blank(e, into);
  const blankDigests = await e.digest(into);
  await e.call('hold');
  const mappedBefore = m.maps(e.pageMapping);
  ctx.check(mappedBefore, "the Manager maps the engine's pages", e.pageMapping);
  const started = Date.now();
  await e.restore(t, into);
  await ctx.sleep(Math.min(300, holdMs / 4));
  await e.close();
  await ctx.sleep(Math.min(300, holdMs / 4));
  const during = await m.status();
  const stillMapped = m.maps(e.pageMapping);
  if (Date.now() - started < holdMs - 100) {
    ctx.check(during.inFlight.restores >= 1, 'while the SSD reads are held, the aborted restore is still in flight (draining)', during.inFlight);
    ctx.check(stillMapped, "while the SSD reads are held, the Manager keeps the aborted engine's pages mapped (no page freed before the read lands)", e.pageMapping);
  } else {
    ctx.check(false, 'the abort happened while the SSD reads were held', { elapsedMs: Date.now() - started, holdMs });
  }
  const unmapped = await ctx.until(() => !m.maps(e.pageMapping), holdMs + 5000, 50);
  ctx.check(unmapped, 'once the held reads completed, the pages are unmapped');
  await checkDrained(ctx, m, 'after the held reads completed');
  const got = await e.call<string[]>('held_digest', { pages: into });
  ctx.check(got.every((d, i) => d === blankDigests[i]), 'the late completions were discarded: no byte reached the aborted pages', { changed: got.map((d, i) => d !== blankDigests[i]) });
  const next = await ctx.engine(m, { name: 'next' });
  const t2 = await next.lookup(hashes);
  const again = await next.wait(t2, 5000);
  ctx.check(stateIs(again, 'ready') && again?.boundary === 4, 'the blocks still serve another engine', again);
  if (stateIs(again, 'ready')) await restoreAndCompare(ctx, next, t2, digests, 'the next engine');
  await checkDrained(ctx, m, 'at the end');
};
