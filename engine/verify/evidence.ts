import type { EvidenceDraft, EvidenceProfile } from '../model/index.js';
import type { AssertionCheck, TargetCheck, TargetOutcome, VerifyReport } from './report.js';

/** Worst first: the result a contract with several checked symbols records. */
const SEVERITY: TargetOutcome[] = ['missing', 'signature-changed', 'unresolvable-statically', 'present'];

export interface EvidenceOptions {
  /** Who records (a person, a team, a CI job). */
  actor: string;
  /** UTC timestamp of the run. */
  at: string;
}

function filesOf(report: VerifyReport, files: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of [...files].sort()) {
    const digest = report.files[f];
    if (digest) out[f] = digest;
  }
  return out;
}

/**
 * The profile the results were observed on: the checkout's own version and commit. A short
 * commit that agrees with the pin stands for the pinned commit. Undefined, with the reason,
 * when the checkout does not say what it is: evidence is never bound to a profile by assumption.
 */
export function profileOf(report: VerifyReport): { profile: EvidenceProfile } | { refusal: string } {
  const v = report.version;
  if (!v?.version) return { refusal: "the checkout's version is unknown, so the results cannot be bound to a profile" };
  if (v.commitMatches === false) return { refusal: `the checkout is at commit ${v.commit}, not the pinned ${v.pinnedCommit}` };
  const commit = v.commit && /^[0-9a-f]{40}$/.test(v.commit) ? v.commit : v.commitMatches ? v.pinnedCommit : undefined;
  return { profile: { engines: { [report.engine]: { version: v.version, ...(commit ? { commit } : {}) } } } };
}

function targetRecord(report: VerifyReport, profile: EvidenceProfile, contract: string, checks: TargetCheck[], options: EvidenceOptions): EvidenceDraft {
  const result = SEVERITY.find((s) => checks.some((c) => c.outcome === s))!;
  const off = checks.filter((c) => c.outcome !== 'present').map((c) => `${c.target}: ${c.outcome}${c.detail ? ` (${c.detail})` : ''}`);
  return {
    at: options.at,
    actor: options.actor,
    type: 'verify.target',
    subject: contract,
    profile,
    data: { result, files: filesOf(report, checks.flatMap((c) => c.files)), note: off.length ? off.join('; ') : `${checks.length} target(s) present` },
  };
}

function assertionRecord(report: VerifyReport, profile: EvidenceProfile, check: AssertionCheck, options: EvidenceOptions): EvidenceDraft {
  const leaves = check.parts ?? [check];
  return {
    at: options.at,
    actor: options.actor,
    type: 'verify.assertion',
    subject: check.contract,
    profile,
    data: { result: check.outcome, files: filesOf(report, check.files), note: leaves.map((p) => `${p.summary}: ${p.outcome}${p.detail ? ` (${p.detail})` : ''}`).join('; ') },
  };
}

/**
 * The ledger records a verification run appends: one `verify.target` per hook and per
 * interface (the worst result among its targets), one `verify.assertion` per gap, each with
 * the sha256 of every file its result was read from, bound to the checkout's engine version.
 */
export function evidenceDrafts(report: VerifyReport, options: EvidenceOptions): { drafts: EvidenceDraft[] } | { refusal: string } {
  if (report.verdict === 'unusable') return { refusal: 'nothing was verified' };
  const bound = profileOf(report);
  if ('refusal' in bound) return bound;
  const byContract = new Map<string, TargetCheck[]>();
  for (const t of report.targets) byContract.set(t.contract, [...(byContract.get(t.contract) ?? []), t]);
  const drafts: EvidenceDraft[] = [];
  for (const [contract, checks] of byContract) drafts.push(targetRecord(report, bound.profile, contract, checks, options));
  for (const a of report.assertions) drafts.push(assertionRecord(report, bound.profile, a, options));
  return { drafts };
}
