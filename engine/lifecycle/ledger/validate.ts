import type { EvidenceRecord } from '../../model/index.js';
import type { Registry } from '../../registry/index.js';
import { type Diagnostic, diagnose } from '../../diagnostics/index.js';
import { EVIDENCE_RULES, EVIDENCE_TYPES, type FieldShape, isEvidenceType } from './rules.js';
import { isCellOf } from '../machines/cells.js';
import { isCalendarTimestamp } from './time.js';

const SHA = /^[0-9a-f]{64}$/;
const COMMIT = /^[0-9a-f]{40}$/;
const VERSION = /^\d+(\.\d+)*([a-z]+\d*)?(\.post\d+)?(\.dev\d+)?$/;
const LINE = /^\d+\.\d+$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;

/**
 * Checks a record against the registry, before it is appended: a known type, a subject of the
 * right kind, the data fields of that type, a profile where the type needs one, gate cells and
 * condition indexes that exist. Pins and the lifecycle are checked by the fold (`admitRecord`).
 */
export function validateRecord(registry: Registry, record: EvidenceRecord): Diagnostic[] {
  const out: Diagnostic[] = [];
  const site = { contract: record.subject };
  if (!isEvidenceType(record.type)) return [diagnose('evidenceUnknownType', site, String(record.type), EVIDENCE_TYPES.join(', '))];
  if (typeof record.actor !== 'string' || record.actor.trim() === '') out.push(diagnose('evidenceMissingField', site, 'actor', record.type));
  if (typeof record.at !== 'string' || !TIMESTAMP.test(record.at)) out.push(diagnose('evidenceBadField', site, 'at', 'a UTC timestamp YYYY-MM-DDTHH:MM:SSZ'));
  else if (!isCalendarTimestamp(record.at)) out.push(diagnose('evidenceBadDate', site, 'at', record.at));
  const subject = registry.get(record.subject);
  if (!subject) return [...out, diagnose('evidenceUnknownSubject', site, record.subject)];
  const rule = EVIDENCE_RULES[record.type];
  if (rule.subjects.length > 0 && !rule.subjects.includes(subject.kind)) out.push(diagnose('evidenceWrongSubjectKind', site, record.type, subject.kind, rule.subjects.join(' or ')));
  const data = (record.data ?? {}) as unknown as Record<string, unknown>;
  if (typeof record.data !== 'object' || record.data === null || Array.isArray(record.data)) out.push(diagnose('evidenceBadField', site, 'data', 'an object'));
  for (const [name, [shape, required]] of Object.entries(rule.data)) {
    const value = data[name];
    if (value === undefined) {
      if (required) out.push(diagnose('evidenceMissingField', site, `data.${name}`, record.type));
      continue;
    }
    const expected = shapeProblem(shape, value);
    if (expected) out.push(diagnose('evidenceBadField', site, `data.${name}`, expected));
  }
  for (const name of Object.keys(data)) if (!Object.hasOwn(rule.data, name)) out.push(diagnose('evidenceUnknownField', site, `data.${name}`));
  out.push(...profileProblems(registry, record, rule.profile));
  if (out.length) return out;
  // Cross-checks against the subject contract.
  if (subject.kind === 'gate' && record.type === 'gate.result') {
    const cell = record.data.cell;
    if (!isCellOf(subject, cell)) out.push(diagnose('evidenceBadCell', site, JSON.stringify(cell ?? {}), subject.id, (subject.matrix ?? []).map((a) => `${a.axis}: ${a.values.join('|')}`).join('; ') || 'none (one cell)'));
    if (subject.evidence.hashes !== 'none' && record.data.result === 'pass' && !record.data.hashes && !record.data.hashesKept) out.push(diagnose('evidenceMissingField', site, 'data.hashes', record.type));
    if (subject.evidence.hashes !== 'none' && record.data.hashes && !record.profile?.adapter) out.push(diagnose('evidenceMissingField', site, 'profile.adapter', record.type));
    if (subject.evidence.hashes === 'engine-and-adapter' && record.data.hashes && Object.keys(record.profile?.engines ?? {}).length === 0) out.push(diagnose('evidenceMissingField', site, 'profile.engines', record.type));
  }
  if (record.type === 'adapter.consumed-replacement' && (subject.kind === 'hook' || subject.kind === 'gap')) {
    const conditions = subject.kind === 'hook' ? subject.removalGate.upstream : subject.reopening.upstream;
    const condition = conditions[record.data.condition];
    if (!condition) out.push(diagnose('evidenceBadCondition', site, record.data.condition, subject.id, conditions.length));
    else if (!condition.upstream && !record.data.release) out.push(diagnose('evidenceMissingField', site, 'data.release', record.type));
  }
  if (record.type === 'pin.changed' && subject.kind === 'engine' && subject.commit !== undefined && record.data.commit === undefined) out.push(diagnose('evidenceMissingField', site, 'data.commit', record.type));
  return out;
}

function profileProblems(registry: Registry, record: EvidenceRecord, need: 'required' | 'engines' | 'optional' | 'none'): Diagnostic[] {
  const site = { contract: record.subject };
  const profile = record.profile;
  if (profile === undefined) {
    if (need === 'required' || need === 'engines') return [diagnose('evidenceMissingField', site, 'profile', record.type)];
    return [];
  }
  if (need === 'none') return [diagnose('evidenceUnknownField', site, 'profile')];
  const out: Diagnostic[] = [];
  if (typeof profile !== 'object' || profile === null || typeof profile.engines !== 'object' || profile.engines === null) return [diagnose('evidenceBadField', site, 'profile.engines', 'an object of engine name → {version, commit}')];
  for (const key of Object.keys(profile)) if (key !== 'engines' && key !== 'adapter') out.push(diagnose('evidenceUnknownField', site, `profile.${key}`));
  for (const [name, pin] of Object.entries(profile.engines)) {
    if (!registry.engine(name)) out.push(diagnose('evidenceBadField', site, `profile.engines.${name}`, 'an engine pinned by an engine contract'));
    else if (typeof pin !== 'object' || pin === null || typeof pin.version !== 'string' || !VERSION.test(pin.version) || (pin.commit !== undefined && !COMMIT.test(pin.commit))) out.push(diagnose('evidenceBadField', site, `profile.engines.${name}`, '{version, commit?} with a 40-hex commit'));
  }
  if (profile.adapter !== undefined && (typeof profile.adapter !== 'string' || !SHA.test(profile.adapter))) out.push(diagnose('evidenceBadField', site, 'profile.adapter', 'a sha256 in hex'));
  if (need === 'required') {
    if (profile.adapter === undefined) out.push(diagnose('evidenceMissingField', site, 'profile.adapter', record.type));
    const subject = registry.get(record.subject);
    const engine = subject && 'engine' in subject && typeof subject.engine === 'string' ? subject.engine : undefined;
    if (engine !== undefined && !Object.hasOwn(profile.engines, engine)) out.push(diagnose('evidenceMissingField', site, `profile.engines.${engine}`, record.type));
  }
  return out;
}

function shapeProblem(shape: FieldShape, value: unknown): string | undefined {
  const isText = (v: unknown) => typeof v === 'string' && v.trim() !== '';
  switch (shape.is) {
    case 'text':
      return isText(value) ? undefined : 'a non-empty string';
    case 'enum':
      return typeof value === 'string' && shape.values.includes(value) ? undefined : `one of: ${shape.values.join(', ')}`;
    case 'sha256':
      return typeof value === 'string' && SHA.test(value) ? undefined : 'a sha256 in hex';
    case 'commit':
      return typeof value === 'string' && COMMIT.test(value) ? undefined : 'a 40-hex commit';
    case 'version':
      return typeof value === 'string' && VERSION.test(value) ? undefined : 'a version like 0.5.21';
    case 'line':
      return typeof value === 'string' && LINE.test(value) ? undefined : "a release line like '0.5'";
    case 'index':
      return Number.isInteger(value) && (value as number) >= 0 ? undefined : 'an index from 0';
    case 'release': {
      const r = value as { line?: unknown; version?: unknown } | null;
      return r && typeof r === 'object' && typeof r.line === 'string' && LINE.test(r.line) && typeof r.version === 'string' && VERSION.test(r.version) && Object.keys(r).length === 2 ? undefined : '{line, version}';
    }
    case 'cell':
      return value && typeof value === 'object' && !Array.isArray(value) && Object.values(value).every((v) => typeof v === 'string') ? undefined : 'an object of axis → value';
    case 'files':
      return value && typeof value === 'object' && !Array.isArray(value) && Object.values(value).every((v) => typeof v === 'string' && SHA.test(v)) ? undefined : 'an object of path → sha256';
    case 'hashes': {
      const h = value as { before?: unknown; after?: unknown } | null;
      return h && typeof h === 'object' && typeof h.before === 'string' && SHA.test(h.before) && typeof h.after === 'string' && SHA.test(h.after) && Object.keys(h).length === 2 ? undefined : '{before, after} sha256 digests';
    }
    case 'citation': {
      const c = value as { document?: unknown; section?: unknown } | null;
      return c && typeof c === 'object' && isText(c.document) && isText(c.section) && Object.keys(c).length === 2 ? undefined : '{document, section}';
    }
    case 'where': {
      const w = value as { engine?: unknown; device?: unknown } | null;
      return w && typeof w === 'object' && (w.engine === 'stand-in' || w.engine === 'real') && isText(w.device) && Object.keys(w).length === 2 ? undefined : "{engine: 'stand-in' | 'real', device}";
    }
  }
}
