import type { EvidenceRecord } from '../../model/index.js';
import type { Registry } from '../../registry/index.js';
import { type Diagnostic, diagnose } from '../../diagnostics/index.js';
import { validateRecord } from '../ledger/validate.js';
import type { LedgerFiles } from '../ledger/file.js';
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
  const lastAt = state.position.at;
  if (lastAt !== '' && Date.parse(record.at) < Date.parse(lastAt)) return [diagnose('evidenceTimeBackwards', site, record.at, lastAt)];
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

function refusalReason(type: string, state: string): string {
  if (state === 'removed' || state === 'reopened') return `it is already ${state}`;
  if (type === 'hook.reinstated') return 'only a regressed hook is reinstated';
  if (type === 'optimization.dropped') return 'the hook is not opt-in, or its drop gates have not all passed on the current pins';
  return 'its removal gates have not all passed on the profile that consumes the released replacement';
}
