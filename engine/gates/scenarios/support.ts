/**
 * What several scenarios do the same way: store a chain of blocks from an engine's pages and
 * check the Manager answered each as stored, wait for the Manager's in-flight work and leases
 * to drain, and read a lookup state under the client's spelling.
 */
import type { CellContext, EngineStandIn, LookupResult, ManagerProcess } from '../harness/index.js';

/** A lookup state, compared without case or separators (`timedOut`, `timed_out`). */
export function stateIs(result: LookupResult | null, state: 'ready' | 'miss' | 'timedOut' | 'cancelled' | 'expired' | 'released'): boolean {
  const norm = (s: string) => s.toLowerCase().replace(/[^a-z]/g, '');
  return result !== null && norm(result.state) === norm(state);
}

/** Pages `from..from+count-1`. */
export const pageRange = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);

/** Fills `pages` with the chain's bytes and saves them; checks every block was stored. Returns the pages' digests. */
export async function storeChain(ctx: CellContext, e: EngineStandIn, hashes: string[], pages: number[], what = 'the chain'): Promise<string[]> {
  await e.fill(pages, hashes);
  const digests = await e.digest(pages);
  const saved = await e.save(hashes, pages);
  ctx.check(saved.blocks !== null && saved.blocks.length === hashes.length && saved.blocks.every((b) => b === 'stored' || b === 'deduplicated'), `${what}: every block of the save is stored`, saved);
  return digests;
}

/** Overwrites `pages` with bytes no saved block has, so a restore into them shows what landed. */
export async function blank(e: EngineStandIn, pages: number[]): Promise<void> {
  await e.fill(pages, pages.map((p) => `blank-${p}`));
}

/** Waits (up to `timeoutMs`) until the Manager has nothing in flight and no lease; checks it. */
export async function checkDrained(ctx: CellContext, m: ManagerProcess, what: string, timeoutMs = 3000): Promise<boolean> {
  let last: unknown;
  const ok = await ctx.until(async () => {
    const s = await m.status();
    last = { inFlight: s.inFlight, pinned: s.tiers.pinned };
    return s.inFlight.tickets === 0 && s.inFlight.saves === 0 && s.inFlight.restores === 0 && s.tiers.pinned === 0;
  }, timeoutMs, 50);
  return ctx.check(ok, `${what}: no ticket, save or restore in flight and no block leased`, last);
}

/**
 * Whether a restore on `ticket` into `pages` is refused: the call, the layer wait or the block
 * report raises (the client's typed error: the engine recomputes), or the restore is accepted and
 * then every block is reported failed without the layer landing.
 */
export async function restoreRefused(e: EngineStandIn, ticket: number, pages: number[], timeoutMs = 3000): Promise<{ refused: boolean; detail: unknown }> {
  const restore = await e.attempt<number>('restore', { ticket, pages });
  if ('error' in restore) return { refused: true, detail: restore.error };
  const landed = await e.attempt<boolean>('wait_layer', { restore: restore.value, layer: 0, timeout: timeoutMs / 1000 });
  const failed = await e.attempt<number[]>('failed_blocks', { restore: restore.value });
  if ('error' in landed || 'error' in failed) return { refused: true, detail: { landed, failed } };
  const all = pages.every((_, i) => failed.value.includes(i));
  return { refused: all, detail: { landed, failed } };
}
