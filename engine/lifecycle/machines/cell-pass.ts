import type { CellResult } from './requirement.js';

/** What a gate asks of the before/after hashes of a pass (its `evidence.hashes`). */
export type HashRequirement = 'engine-and-adapter' | 'adapter' | 'none';

/**
 * The one rule for "a gate cell passed", used by the gate's own lifecycle and by every hook, gap
 * and rejection that needs the cell: its latest result on the current pins is a pass and, where
 * the gate asks for hashes, the ledger holds equal before/after hashes and the adapter hash of
 * the profile. Hashes kept outside the ledger are recorded but cannot be checked, so they do not
 * pass a cell. A gate whose evidence hashes the engine installation (`engine-and-adapter`) needs
 * the real engine: a result marked as run on an engine stand-in (`data.where.engine`, which
 * `orbitkv gate run` always writes; its profile names the pins the stand-in presented, so a pin
 * change voids it like any other) passes none of its cells. Returns why the cell did not pass, or undefined.
 * Which adapter a removal needs, and independent acceptance, are conditions of their own on top.
 */
export function cellResultBlocker(result: CellResult | null | undefined, hashes: HashRequirement): string | undefined {
  if (!result) return 'no result on the current pins';
  if (!result.pass) return 'failed';
  if (hashes === 'engine-and-adapter' && result.standIn) return 'ran on an engine stand-in; the gate needs the real engine';
  if (hashes === 'none') return undefined;
  if (result.hashes === 'differ') return 'before/after hashes differ';
  if (result.hashes === 'kept') return 'before/after hashes kept outside the ledger (unchecked)';
  if (result.hashes !== 'equal') return 'no before/after hashes in the ledger';
  if (!result.adapter) return 'no adapter hash in the profile';
  return undefined;
}
