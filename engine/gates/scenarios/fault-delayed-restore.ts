/**
 * fault-delayed-restore: with every restore's copy into pages delayed (fault injection), a
 * forward that asks for the layer before it landed is told to wait (the layer is not complete
 * and the pages still hold their old bytes: nothing partial is visible), the layer completes
 * once the copy lands, and the bytes then equal the saved ones; no block is reported failed.
 */
import type { ScenarioRun } from '../harness/index.js';
import { blank, checkDrained, pageRange, stateIs, storeChain } from './support.js';

export const run: ScenarioRun = async (ctx) => {
  const m = await ctx.manager();
  const delayMs = m.spec.faults?.['restore-copy-delay-ms'] ?? 0;
  ctx.check(delayMs > 0, 'the Manager delays restore copies (fault injection)', m.spec);
  const e = await ctx.engine(m);
  const hashes = ctx.hashes('chain', 4);
  const digests = await storeChain(ctx, e, hashes, pageRange(0, 4));
  const t = await e.lookup(hashes);
  ctx.check(stateIs(await e.wait(t, 5000), 'ready'), 'the lookup is ready');
  const into = pageRange(16, 4);
  await blank(e, into);
  const blankDigests = await e.digest(into);
  const started = Date.now();
  const r = await e.restore(t, into);
  const early = await e.waitLayer(r, 0, Math.min(100, delayMs / 4));
  const seen = await e.digest(into);
  if (Date.now() - started < delayMs - 50) {
    ctx.check(early === false, 'before the delayed copy lands, the layer is not complete (the forward waits)');
    ctx.check(seen.every((d, i) => d === blankDigests[i]), 'before it lands, no restored byte is visible in the pages (nothing partial)', { changed: seen.map((d, i) => d !== blankDigests[i]) });
  } else {
    ctx.check(false, 'the layer was asked for while the copy was still delayed', { elapsedMs: Date.now() - started, delayMs });
  }
  const landed = await e.waitLayer(r, 0, delayMs + 5000);
  ctx.check(landed, 'the layer completes once the delayed copy lands');
  ctx.check((await e.failedBlocks(r)).length === 0, 'no block is reported failed');
  const got = await e.digest(into);
  ctx.check(got.every((d, i) => d === digests[i]), 'the pages then hold exactly the saved bytes');
  await checkDrained(ctx, m, 'after the restore');
};
