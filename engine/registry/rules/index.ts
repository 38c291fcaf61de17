/** Every semantic rule, one per file named by its id (see `rule.ts`). */
import { rule as duplicateEngine } from './duplicate-engine.js';
import { rule as duplicateId } from './duplicate-id.js';
import { rule as engineCommit } from './engine-commit.js';
import { rule as enginePinned } from './engine-pinned.js';
import { rule as fileName } from './file-name.js';
import { rule as gapKeepsHook } from './gap-keeps-hook.js';
import { rule as gapRejectionReciprocal } from './gap-rejection-reciprocal.js';
import { rule as gateScenario } from './gate-scenario.js';
import { rule as gateCells } from './gate-cells.js';
import { rule as hookLifecycle } from './hook-lifecycle.js';
import { rule as hookSignature } from './hook-signature.js';
import { rule as interfaceQualifiedBy } from './interface-qualified-by.js';
import { rule as keptHookRemovalGate } from './kept-hook-removal-gate.js';
import { rule as modeline } from './modeline.js';
import { rule as newestSeen } from './newest-seen.js';
import { rule as optInSwitches } from './opt-in-switches.js';
import { rule as pinAgreement } from './pin-agreement.js';
import { rule as placeholder } from './placeholder.js';
import { rule as predicateOperands } from './predicate-operands.js';
import { rule as productPolicy } from './product-policy.js';
import { rule as productScenario } from './product-scenario.js';
import { rule as proseComment } from './prose-comment.js';
import { rule as recheckAge } from './recheck-age.js';
import { rule as referenceKind } from './reference-kind.js';
import { rule as rejectionFacts } from './rejection-facts.js';
import { rule as rejectionJustified } from './rejection-justified.js';
import { rule as removedHookCoverage } from './removed-hook-coverage.js';
import { rule as removedHookPin } from './removed-hook-pin.js';
import { rule as removedHookReplacement } from './removed-hook-replacement.js';
import { rule as replacementLine } from './replacement-line.js';
import { rule as replacementState } from './replacement-state.js';
import { rule as statementGates } from './statement-gates.js';
import { rule as unknownEngine } from './unknown-engine.js';
import { rule as unresolvedReference } from './unresolved-reference.js';
import { rule as upstreamMergeState } from './upstream-merge-state.js';
import { rule as versionLine } from './version-line.js';
import type { RegistryRule } from './rule.js';

export type { RegistryRule, RuleContext, RuleSite } from './rule.js';

/** The rules `validateRegistry` runs, in a fixed order (diagnostics are sorted afterwards anyway). */
export const RULES: readonly RegistryRule[] = [
  duplicateEngine,
  duplicateId,
  engineCommit,
  enginePinned,
  fileName,
  gapKeepsHook,
  gapRejectionReciprocal,
  gateScenario,
  gateCells,
  hookLifecycle,
  hookSignature,
  interfaceQualifiedBy,
  keptHookRemovalGate,
  modeline,
  newestSeen,
  optInSwitches,
  pinAgreement,
  placeholder,
  predicateOperands,
  productPolicy,
  productScenario,
  proseComment,
  recheckAge,
  referenceKind,
  rejectionFacts,
  rejectionJustified,
  removedHookCoverage,
  removedHookPin,
  removedHookReplacement,
  replacementLine,
  replacementState,
  statementGates,
  unknownEngine,
  unresolvedReference,
  upstreamMergeState,
  versionLine,
];
