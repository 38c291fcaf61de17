import type { EvidenceRecord } from '../../model/index.js';
import type { Registry } from '../../registry/index.js';
import { type Diagnostic, diagnose } from '../../diagnostics/index.js';
import { validateRecord } from '../ledger/validate.js';
import type { LedgerFiles } from '../ledger/file.js';
import { type RequirementContext, leaveBlockers } from '../machines/index.js';
import { type FoldState, foldRecords, profileFacts } from './fold.js';
import { loadFold } from './load.js';

/**
 * Whether a sealed record may join the ledger: valid against the registry, not earlier than
 * the last record, bound to the current pins, and not refused by its lifecycle. `state` is the
 * fold of the ledger before the record (it is folded into it: pass a state of your own). Returns
 * the refusals (errors) and nothing else; the ledger is not touched.
 */
export function admitRecord(registry: Registry, state: FoldState, record: EvidenceRecord): Diagnostic[] {
  const site = { contract: record.subject };
  const problems = validateRecord(registry, record);
  if (problems.length) return problems;
  // A pin moves in the engine contract first (where every copy of it is checked), then in the ledger.
  const subject = registry.get(record.subject);
  if (record.type === 'pin.changed' && subject?.kind === 'engine' && (record.data.version !== subject.version || (subject.commit !== undefined && record.data.commit !== subject.commit))) {
    return [diagnose('pinNotInContract', site, subject.name, `${record.data.version}${record.data.commit ? ` (${record.data.commit.slice(0, 8)})` : ''}`, `${subject.version}${subject.commit ? ` (${subject.commit.slice(0, 8)})` : ''}`, subject.id)];
  }
  const lastAt = state.position.at;
  if (lastAt !== '' && Date.parse(record.at) < Date.parse(lastAt)) return [diagnose('evidenceTimeBackwards', site, record.at, lastAt)];
  const facts = profileFacts(state, record.profile);
  if (facts.mismatch) return [diagnose('evidenceProfileMismatch', site, facts.mismatch.engine, facts.mismatch.found, facts.mismatch.pinned)];
  if (record.type === 'gate.acceptance' && state.authors.includes(record.actor)) {
    return [diagnose('evidenceRefused', site, record.type, state.contracts[record.subject]?.value ?? 'unknown', `${record.actor} recorded pins, consumption or removals; acceptance must come from an independent actor`)];
  }
  const before = state.refusals.length;
  const stateBefore = state.contracts[record.subject]?.value ?? 'unknown';
  const contextBefore = state.contracts[record.subject]?.context;
  foldRecords(registry, state, [record]);
  const refusal = state.refusals.slice(before).find((r) => r.seq === record.seq && r.subject === record.subject);
  if (refusal) return [diagnose('evidenceRefused', site, record.type, stateBefore, refusalReason(record.type, stateBefore, contextBefore))];
  return [];
}

/**
 * The check `appendEvidence` runs under the ledger lock: the fold of the ledger as it stands (from
 * the snapshot cache plus the records after it, when `cacheDir` is given), then `admitRecord`.
 */
export function ledgerAdmission(registry: Registry, files: LedgerFiles, cacheDir?: string): (record: EvidenceRecord) => Diagnostic[] {
  return (record) => {
    const loaded = loadFold(registry, files, cacheDir !== undefined ? { cacheDir } : {});
    if (loaded.diagnostics.length) return loaded.diagnostics;
    return admitRecord(registry, loaded.state, record);
  };
}

/** Why the lifecycle refused a record: the conditions that are really missing (`leaveBlockers`). */
function refusalReason(type: string, state: string, context: unknown): string {
  if (state === 'removed' || state === 'reopened') return `it is already ${state}`;
  if (type === 'hook.reinstated') return 'only a regressed hook is reinstated';
  const blockers = context && typeof context === 'object' && 'spec' in context && 'consumed' in context ? leaveBlockers(context as RequirementContext, type === 'optimization.dropped' ? 'drop' : 'removal') : [];
  if (blockers.length) return blockers.join('; ');
  return `a '${type}' record is taken only in state '${type === 'support.expanded' ? 'reopenable' : 'removable'}'`;
}
