/**
 * lookup-rank-agreement, for 2 and 4 ranks: each rank (its own engine process and its own
 * shard namespace) stored a different prefix length; the ranks look up one request at
 * different times; every rank stays pending until the last has reported, then all admit the
 * same boundary (the shortest stored prefix) and restore it byte for byte. A request one rank
 * never joins makes all the others defer (time out), none admits.
 */
import type { ScenarioRun } from '../harness/index.js';
import { checkDrained, pageRange, stateIs, storeChain } from './support.js';
import { restoreAndCompare } from './tier-cold-hot-restart.js';

const CHAIN = 8;

export const run: ScenarioRun = async (ctx) => {
  const ranks = Number(ctx.params['ranks']);
  const m = await ctx.manager();
  const engines = await Promise.all(Array.from({ length: ranks }, (_, r) => ctx.engine(m, { name: `rank${r}`, engine: 'sglang' })));
  const shard = (r: number) => ({ ...ctx.namespace, layout: `${ctx.namespace.layout}:tp${r}` });
  const hashes = ctx.hashes('chain', CHAIN);
  const digests: string[][] = [];
  for (const [r, e] of engines.entries()) {
    const n = CHAIN - r;
    await e.fill(pageRange(0, n), hashes.slice(0, n).map((h) => `${h}@${r}`));
    digests.push(await e.digest(pageRange(0, n)));
    const saved = await e.save(hashes.slice(0, n), pageRange(0, n), shard(r));
    ctx.check(saved.blocks?.every((b) => b === 'stored') === true, `rank ${r} stored its ${n} blocks`, saved);
  }
  const expected = CHAIN - (ranks - 1);
  const request = `agree-${ctx.namespace.model}`;
  const tickets: number[] = [];
  for (let r = ranks - 1; r >= 0; r--) {
    tickets[r] = await engines[r]!.lookup(hashes, { request, rank: r, worldSize: ranks, deadlineMs: 10_000, namespace: shard(r) });
    if (r > 0) {
      await ctx.sleep(120);
      const early = await Promise.all(engines.map((e, i) => (tickets[i] === undefined ? null : e.poll(tickets[i]!))));
      ctx.check(early.every((p) => p === null), `with ${ranks - r} of ${ranks} ranks reported, every rank is still pending`, early);
    }
  }
  const results = await Promise.all(engines.map((e, r) => e.wait(tickets[r]!, 5000)));
  ctx.check(results.every((x) => stateIs(x, 'ready')), 'every rank is ready once all reported', results);
  ctx.check(results.every((x) => x?.boundary === expected), `every rank admits the same boundary, the shortest stored prefix (${expected})`, results.map((x) => x?.boundary));
  for (const [r, e] of engines.entries()) {
    if (stateIs(results[r]!, 'ready') && results[r]!.boundary === expected) await restoreAndCompare(ctx, e, tickets[r]!, digests[r]!.slice(0, expected), `rank ${r}`);
    else await e.release(tickets[r]!);
  }
  // One rank never joins: all the others defer.
  const lone = `lone-${ctx.namespace.model}`;
  const waiting = await Promise.all(engines.slice(1).map((e, i) => e.lookup(hashes, { request: lone, rank: i + 1, worldSize: ranks, deadlineMs: 500, namespace: shard(i + 1) })));
  const deferred = await Promise.all(engines.slice(1).map((e, i) => e.wait(waiting[i]!, 5000)));
  ctx.check(deferred.every((x) => x !== null && !stateIs(x, 'ready')), 'with one rank missing, no rank admits a boundary (all defer)', deferred);
  await checkDrained(ctx, m, 'after the agreement');
};
