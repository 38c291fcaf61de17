/**
 * The rejection checks the Manager runs at handshake: exactly the TypeScript module
 * `orbitkv generate` emits for the registry it serves (same emitter, same text), compiled
 * in memory and imported once. No second evaluator exists to drift from the shared vectors.
 */
import { ts } from 'ts-morph';
import type { Registry } from '../../registry/index.js';
import { emitTypescriptRejections, rejectionTable } from '../../../generators/rejections/index.js';

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

/** Emits, compiles and imports the registry's rejection module. */
export async function loadRejectionChecks(registry: Registry): Promise<RejectionChecks> {
  const source = emitTypescriptRejections(rejectionTable(registry));
  const js = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 } }).outputText;
  return (await import(`data:text/javascript;base64,${Buffer.from(js, 'utf8').toString('base64')}`)) as RejectionChecks;
}
