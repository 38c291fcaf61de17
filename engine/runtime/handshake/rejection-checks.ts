/**
 * The rejection checks the Manager runs at handshake: the module `orbitkv generate` emits for
 * the registry it serves (same emitter), as the committed JavaScript of its evaluator with the
 * served registry's data spliced in, imported once. No compiler runs at serve time (ts-morph
 * alone held some 80 MiB of the Manager's memory), and no second evaluator exists to drift from
 * the shared vectors: a spec holds the committed module to what the emitter gives now.
 */
import type { Registry } from '../../registry/index.js';
// By file, not the folder's index: that one also carries the ts-morph emitter.
import { rejectionTable } from '../../../generators/rejections/plan.js';
import { spliceRejectionData } from '../../../generators/rejections/splice.js';
import { REJECTION_MODULE_JS } from './rejection-module.generated.js';

export interface VerdictEntry {
  id: string;
  justifiedBy: string[];
  message: string;
  instead: string;
}

export interface Verdict {
  engine: string;
  accepted: boolean;
  pin: { contract: string; pinned: string; found: string; matches: boolean } | null;
  rejections: VerdictEntry[];
}

/** The surface of the generated module the Manager uses. */
export interface RejectionChecks {
  evaluate(profile: unknown): Verdict;
  profileProblem(profile: unknown): string | undefined;
  describe(entry: VerdictEntry): string;
}

/** The registry's rejection module as JavaScript: the committed evaluator, this registry's data. */
export function rejectionModuleFor(registry: Registry): string {
  return spliceRejectionData(REJECTION_MODULE_JS, rejectionTable(registry));
}

/** Builds and imports the registry's rejection module. */
export async function loadRejectionChecks(registry: Registry): Promise<RejectionChecks> {
  return (await import(`data:text/javascript;base64,${Buffer.from(rejectionModuleFor(registry), 'utf8').toString('base64')}`)) as RejectionChecks;
}
