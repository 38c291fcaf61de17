import type { EvidenceRecord } from '../../model/index.js';
import type { Registry } from '../../registry/index.js';
import { type Diagnostic, diagnose } from '../../diagnostics/index.js';
import { validateRecord } from '../ledger/validate.js';
import type { Admission, LedgerFiles } from '../ledger/file.js';
import { type Trust, loadTrust, signRecord } from '../ledger/trust.js';
import type { SshSigningKey } from '../ledger/sshsig.js';
import { type RequirementContext, leaveBlockers } from '../machines/index.js';
import { type FoldState, LedgerFolder, authorOf, foldRecords, initialFold, profileFacts } from './fold.js';

/** How far past the clock a record's time may be: clocks of two machines disagree a little, never by days. */
export const CLOCK_SKEW_MS = 5 * 60_000;

/**
 * Whether a sealed record may join the ledger: valid against the registry, not earlier than
 * the last record nor later than `now` plus the clock skew, bound to the current pins, and not
 * refused by its lifecycle. `state` is the fold of the ledger before the record (it is folded
 * into it: pass a state of your own). Returns the refusals (errors); the ledger is not touched.
 */
export function admitRecord(registry: Registry, state: FoldState, record: EvidenceRecord, now = Date.now()): Diagnostic[] {
  const site = { contract: record.subject };
  const problems = validateRecord(registry, record);
  if (problems.length) return problems;
  // A pin moves in the engine contract first (where every copy of it is checked), then in the ledger.
  const subject = registry.get(record.subject);
  if (record.type === 'pin.changed' && subject?.kind === 'engine' && (record.data.version !== subject.version || (subject.commit !== undefined && record.data.commit !== subject.commit))) {
    return [diagnose('pinNotInContract', site, subject.name, `${record.data.version}${record.data.commit ? ` (${record.data.commit.slice(0, 8)})` : ''}`, `${subject.version}${subject.commit ? ` (${subject.commit.slice(0, 8)})` : ''}`, subject.id)];
  }
  if (Date.parse(record.at) > now + CLOCK_SKEW_MS) return [diagnose('evidenceFutureTime', site, record.at, new Date(now).toISOString())];
  const lastAt = state.position.at;
  if (lastAt !== '' && Date.parse(record.at) < Date.parse(lastAt)) return [diagnose('evidenceTimeBackwards', site, record.at, lastAt)];
  const facts = profileFacts(state, record.profile);
  if (facts.mismatch) return [diagnose('evidenceProfileMismatch', site, facts.mismatch.engine, facts.mismatch.found, facts.mismatch.pinned)];
  if (record.type === 'gate.acceptance' && state.authors.includes(authorOf(record))) {
    return [diagnose('evidenceRefused', site, record.type, state.contracts[record.subject]?.value ?? 'unknown', `${authorOf(record)} recorded pins, consumption or removals; acceptance must come from an independent signer`)];
  }
  const before = state.refusals.length;
  const stateBefore = state.contracts[record.subject]?.value ?? 'unknown';
  const contextBefore = state.contracts[record.subject]?.context;
  foldRecords(registry, state, [record]);
  const refusal = state.refusals.slice(before).find((r) => r.seq === record.seq && r.subject === record.subject);
  if (refusal) return [diagnose('evidenceRefused', site, record.type, stateBefore, refusalReason(record.type, stateBefore, contextBefore))];
  return [];
}

export interface AdmissionOptions {
  /** Signs the record (`evidence add --key`). */
  key?: SshSigningKey;
  /** The trusted signers (default: the registry's allowed_signers). */
  trust?: Trust;
  /**
   * Hears of the appended record, once it is durable, with the fold that admitted it (at the new
   * end) and the digest of the ledger bytes up to there: the snapshot store writes it down
   * (`snapshotOnCommit`), so a later `status` starts warm.
   */
  committed?: (state: FoldState, prefixDigest: string, trust: Trust) => void;
  now?: () => number;
}

/**
 * The admission `appendEvidence` runs under the ledger lock: the records the locked scan verified
 * are folded from the start as they stream by (never from a cached state, which anyone can edit),
 * then `admitRecord` judges the new one against that fold.
 */
export function ledgerAdmission(registry: Registry, files: LedgerFiles, options: AdmissionOptions = {}): Admission {
  const trust = options.trust ?? loadTrust(files.signers);
  const state = initialFold(registry);
  const folder = new LedgerFolder(registry, state, { trace: false });
  let finished: FoldState | undefined;
  const key = options.key;
  return {
    trust,
    onRecord: (record) => void folder.push(record),
    // Called once per record of a batch: the first call ends the fold of the ledger, and each
    // admitted record is folded into it (`admitRecord`), so the next one is judged after it.
    check: (record, end) => {
      finished ??= folder.finish();
      finished.position = end;
      return admitRecord(registry, finished, record, options.now?.() ?? Date.now());
    },
    ...(key ? { sign: (body: Record<string, unknown>) => signRecord(trust, key, body) } : {}),
    committed: (_record, end, prefixDigest) => {
      if (!finished || !options.committed) return;
      finished.position = end;
      options.committed(finished, prefixDigest, trust);
    },
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
