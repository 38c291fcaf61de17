import type { ContractKind, EvidenceType } from '../../model/index.js';

/** The shape of one data field, checked by `validateDraft`. */
export type FieldShape =
  | { is: 'text' }
  | { is: 'enum'; values: readonly string[] }
  | { is: 'sha256' }
  | { is: 'commit' }
  | { is: 'version' }
  | { is: 'line' }
  | { is: 'index' }
  | { is: 'release' }
  | { is: 'cell' }
  | { is: 'files' }
  | { is: 'hashes' }
  | { is: 'citation' }
  | { is: 'where' };

interface TypeRule {
  /** Contract kinds the subject may have; empty: any kind. */
  subjects: readonly ContractKind[];
  /** `required`: a profile with the subject's engine and the adapter hash; `engines`: a profile, adapter optional; `none`: no profile. */
  profile: 'required' | 'engines' | 'optional' | 'none';
  /** Data fields: shape and whether required. */
  data: Record<string, [FieldShape, boolean]>;
}

const text = { is: 'text' } as const;
const COMMON: Record<string, [FieldShape, boolean]> = { source: [{ is: 'citation' }, false], note: [text, false] };

/**
 * What each evidence type may be about, whether it is bound to a profile, and its data fields.
 * This table and `engine/model/evidence.ts` describe the same shapes; a spec checks every type
 * of the model has a rule here.
 */
export const EVIDENCE_RULES: Record<EvidenceType, TypeRule> = {
  'upstream.state': { subjects: ['upstream'], profile: 'none', data: { state: [{ is: 'enum', values: ['open', 'merged', 'closed'] }, true], commit: [{ is: 'commit' }, false] } },
  'upstream.released': { subjects: ['upstream'], profile: 'none', data: { line: [{ is: 'line' }, true], version: [{ is: 'version' }, true] } },
  'pin.changed': { subjects: ['engine'], profile: 'none', data: { version: [{ is: 'version' }, true], commit: [{ is: 'commit' }, false] } },
  recheck: { subjects: [], profile: 'none', data: { findings: [text, true], authorizes: [{ is: 'enum', values: ['nothing'] }, true] } },
  'adapter.consumed-replacement': { subjects: ['hook', 'gap'], profile: 'required', data: { condition: [{ is: 'index' }, true], release: [{ is: 'release' }, false], adapterVersion: [text, true] } },
  'verify.target': { subjects: ['hook', 'interface'], profile: 'engines', data: { result: [{ is: 'enum', values: ['present', 'missing', 'signature-changed', 'unresolvable-statically'] }, true], files: [{ is: 'files' }, true] } },
  'verify.assertion': { subjects: ['gap'], profile: 'engines', data: { result: [{ is: 'enum', values: ['holds', 'no-longer-holds', 'unresolvable'] }, true], files: [{ is: 'files' }, true] } },
  'gate.result': { subjects: ['gate'], profile: 'optional', data: { result: [{ is: 'enum', values: ['pass', 'fail'] }, true], cell: [{ is: 'cell' }, false], hashes: [{ is: 'hashes' }, false], hashesKept: [text, false], artifacts: [text, false], where: [{ is: 'where' }, false] } },
  'gate.acceptance': { subjects: ['gate'], profile: 'engines', data: { verdict: [{ is: 'enum', values: ['accepted', 'rejected'] }, true] } },
  'hook.removed': { subjects: ['hook'], profile: 'required', data: { adapterVersion: [text, true] } },
  'optimization.dropped': { subjects: ['hook'], profile: 'required', data: { adapterVersion: [text, true] } },
  'hook.reinstated': { subjects: ['hook'], profile: 'optional', data: { reason: [text, true] } },
  'support.expanded': { subjects: ['gap', 'rejection'], profile: 'required', data: { adapterVersion: [text, true] } },
};

for (const rule of Object.values(EVIDENCE_RULES)) Object.assign(rule.data, COMMON);

export const EVIDENCE_TYPES = Object.keys(EVIDENCE_RULES) as EvidenceType[];

export function isEvidenceType(type: string): type is EvidenceType {
  return Object.hasOwn(EVIDENCE_RULES, type);
}
