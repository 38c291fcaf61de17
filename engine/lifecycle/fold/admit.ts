import type { EvidenceRecord } from '../../model/index.js';
import type { Registry } from '../../registry/index.js';
import { type Diagnostic, diagnose } from '../../diagnostics/index.js';
import { validateRecord } from '../ledger/validate.js';
import { type FoldState, foldLedger, foldRecords, profileFacts } from './fold.js';

/**
 * Whether a sealed record may join the ledger: valid against the registry, not earlier than
 * the last record, bound to the current pins, and not refused by its lifecycle. Returns the
 * refusals (errors) and nothing else; the ledger is not touched.
 */
export function admitRecord(registry: Registry, ledger: readonly EvidenceRecord[], record: EvidenceRecord, folded?: FoldState): Diagnostic[] {
  const site = { contract: record.subject };
  const problems = validateRecord(registry, record);
  if (problems.length) return problems;
  const last = ledger[ledger.length - 1];
  if (last && Date.parse(record.at) < Date.parse(last.at)) return [diagnose('evidenceTimeBackwards', site, record.at, last.at)];
  const state = folded ?? foldLedger(registry, ledger);
  const facts = profileFacts(state, record.profile);
  if (facts.mismatch) return [diagnose('evidenceProfileMismatch', site, facts.mismatch.engine, facts.mismatch.found, facts.mismatch.pinned)];
  if (record.type === 'gate.acceptance' && state.authors.includes(record.actor)) {
    return [diagnose('evidenceRefused', site, record.type, state.contracts[record.subject]?.value ?? 'unknown', `${record.actor} recorded pins, consumption or removals; acceptance must come from an independent actor`)];
  }
  const before = state.refusals.length;
  const stateBefore = state.contracts[record.subject]?.value ?? 'unknown';
  foldRecords(registry, state, [record]);
  const refusal = state.refusals.slice(before).find((r) => r.seq === record.seq && r.subject === record.subject);
  if (refusal) return [diagnose('evidenceRefused', site, record.type, stateBefore, refusalReason(record.type, stateBefore))];
  return [];
}

function refusalReason(type: string, state: string): string {
  if (state === 'removed' || state === 'reopened') return `it is already ${state}`;
  if (type === 'hook.reinstated') return 'only a regressed hook is reinstated';
  if (type === 'optimization.dropped') return 'the hook is not opt-in, or its drop gates have not all passed on the current pins';
  return 'its removal gates have not all passed on the profile that consumes the released replacement';
}
