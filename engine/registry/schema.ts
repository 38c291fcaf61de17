import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { CONTRACT_KINDS, type ContractKind } from '../model/index.js';
import { type Diagnostic, diagnose } from '../diagnostics/index.js';
import { type SourceFile, rangeAtPath } from './source.js';

const require = createRequire(import.meta.url);

/** The folder of generated schemas shipped with the package (`contracts/schema`). */
export function shippedSchemaDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const up = here.includes(join('dist', 'engine')) ? '../../..' : '../..';
  return join(here, up, 'contracts', 'schema');
}

interface KindSchemas {
  ajv: import('ajv').default;
  roots: Map<ContractKind, { id: string; schema: SchemaNode }>;
}

/** The parts of a generated JSON Schema node the loader and `fmt` read. */
export interface SchemaNode {
  $ref?: string;
  anyOf?: SchemaNode[];
  oneOf?: SchemaNode[];
  properties?: Record<string, SchemaNode & { const?: unknown }>;
  required?: string[];
  items?: SchemaNode;
  definitions?: Record<string, SchemaNode>;
}

let compiled: KindSchemas | undefined;

/** Ajv over the generated schemas, one root per kind, built once per process. */
function kindSchemas(): KindSchemas {
  if (compiled) return compiled;
  const AjvCtor = require('ajv') as typeof import('ajv').default;
  const ajv = new AjvCtor({ allErrors: true, strict: false, allowUnionTypes: true, verbose: true });
  const dir = shippedSchemaDir();
  const roots = new Map<ContractKind, { id: string; schema: SchemaNode }>();
  for (const kind of CONTRACT_KINDS) {
    const schema = JSON.parse(readFileSync(join(dir, `${kind}.json`), 'utf8')) as SchemaNode & { $id: string };
    ajv.addSchema(schema);
    roots.set(kind, { id: schema.$id, schema });
  }
  compiled = { ajv, roots };
  return compiled;
}

/** The generated schema of one kind (root object with its `definitions`). */
export function kindSchema(kind: ContractKind): SchemaNode {
  return kindSchemas().roots.get(kind)!.schema;
}

function validatorFor(rootId: string, pointer: string): ValidateFunction {
  const { ajv } = kindSchemas();
  const v = ajv.getSchema(`${rootId}${pointer}`);
  if (!v) throw new Error(`schema ${rootId}${pointer} not found`);
  return v;
}

/**
 * Validates one parsed contract against its kind's schema, appending positioned diagnostics.
 * Returns the kind when the contract is structurally valid.
 */
export function checkSchema(source: SourceFile, value: unknown, diagnostics: Diagnostic[]): ContractKind | undefined {
  const file = source.file;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    diagnostics.push(diagnose('notAMapping', { file, range: rangeAtPath(source, []) }));
    return undefined;
  }
  const record = value as Record<string, unknown>;
  const contract = typeof record['id'] === 'string' ? record['id'] : undefined;
  const kind = record['kind'];
  if (kind === undefined) {
    diagnostics.push(diagnose('missingKind', { file, range: rangeAtPath(source, []), contract }));
    return undefined;
  }
  if (typeof kind !== 'string' || !(CONTRACT_KINDS as readonly string[]).includes(kind)) {
    diagnostics.push(diagnose('unknownKind', { file, range: rangeAtPath(source, ['kind']), contract }, String(kind), CONTRACT_KINDS.join(', ')));
    return undefined;
  }
  const root = kindSchemas().roots.get(kind as ContractKind)!;
  const errors = explain(root.id, root.schema, '', value, '');
  if (errors.length === 0) return kind as ContractKind;
  for (const error of errors) diagnostics.push(toDiagnostic(source, error, contract));
  return undefined;
}

/**
 * Ajv with `allErrors` reports every branch of a union, which buries the one real mistake.
 * This validates `value` against the schema at `pointer`, then replaces each failing union's
 * errors by those of the branch the value was meant to be: the branch whose `const`
 * discriminator matches, else the one whose properties overlap the value's keys most.
 * When a discriminator matches no branch, a single error names the allowed values.
 */
function explain(rootId: string, rootSchema: SchemaNode, pointer: string, value: unknown, basePath: string): ErrorObject[] {
  const validate = validatorFor(rootId, pointer);
  if (validate(value)) return [];
  const raw = (validate.errors ?? []).map((e) => ({ ...e, instancePath: basePath + e.instancePath }));
  const unions = raw.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf');
  // Shallowest unions first; their branches are explained recursively.
  unions.sort((a, b) => a.instancePath.length - b.instancePath.length);
  let result = raw.filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'oneOf');
  const handled: string[] = [];
  for (const union of unions) {
    const at = union.instancePath;
    if (handled.some((h) => at === h || at.startsWith(`${h}/`))) continue;
    handled.push(at);
    result = result.filter((e) => !(e.instancePath === at || e.instancePath.startsWith(`${at}/`)));
    const branches = ((union.parentSchema as SchemaNode).anyOf ?? (union.parentSchema as SchemaNode).oneOf ?? []).map((b) => b.$ref).filter((r): r is string => Boolean(r));
    const sub = valueAtPointer(value, at.slice(basePath.length));
    result.push(...explainUnion(rootId, rootSchema, branches, sub, at, union));
  }
  return result;
}

function explainUnion(rootId: string, rootSchema: SchemaNode, refs: string[], value: unknown, at: string, union: ErrorObject): ErrorObject[] {
  const defs = rootSchema.definitions ?? {};
  const schemaOf = (ref: string) => defs[ref.split('/').pop()!];
  const isObject = value !== null && typeof value === 'object' && !Array.isArray(value);
  if (!isObject || refs.length === 0) return [union];
  const record = value as Record<string, unknown>;
  // Discriminators: properties with a `const` in the branches.
  const discriminators = new Set<string>();
  for (const ref of refs) for (const [k, p] of Object.entries(schemaOf(ref)?.properties ?? {})) if (p.const !== undefined) discriminators.add(k);
  let candidates = refs;
  for (const key of discriminators) {
    const matching = candidates.filter((ref) => {
      const p = schemaOf(ref)?.properties?.[key];
      return p?.const === undefined || p.const === record[key];
    });
    if (matching.length === 0) {
      const allowed = refs.map((ref) => schemaOf(ref)?.properties?.[key]?.const).filter((v) => v !== undefined);
      return [{ ...union, keyword: 'enum', instancePath: `${at}/${key}`, params: { allowedValues: allowed } }];
    }
    candidates = matching;
  }
  const keys = Object.keys(record);
  const scored = candidates.map((ref) => {
    const props = Object.keys(schemaOf(ref)?.properties ?? {});
    const overlap = keys.filter((k) => props.includes(k)).length - keys.filter((k) => !props.includes(k)).length;
    const errors = explain(rootId, rootSchema, ref, value, at);
    return { ref, overlap, errors };
  });
  scored.sort((a, b) => b.overlap - a.overlap || a.errors.length - b.errors.length);
  return scored[0]!.errors;
}

function valueAtPointer(value: unknown, pointer: string): unknown {
  let node = value;
  for (const seg of segments(pointer)) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[seg];
  }
  return node;
}

function segments(instancePath: string): string[] {
  if (!instancePath) return [];
  return instancePath.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function where(path: string[]): string {
  return path.length ? ` at '${path.join('.')}'` : '';
}

function toDiagnostic(source: SourceFile, e: ErrorObject, contract: string | undefined): Diagnostic {
  const file = source.file;
  const path = segments(e.instancePath);
  const name = path.length ? `'${path.join('.')}'` : 'the contract';
  switch (e.keyword) {
    case 'required': {
      const field = String((e.params as { missingProperty: string }).missingProperty);
      // A field missing at the top is reported at `kind:` (the contract's first key), not over the whole document.
      const range = path.length > 0 ? rangeAtPath(source, path, true) : rangeAtPath(source, ['kind'], true);
      return diagnose('schemaRequired', { file, range, contract }, field, where(path));
    }
    case 'additionalProperties': {
      const key = String((e.params as { additionalProperty: string }).additionalProperty);
      const allowed = Object.keys(((e.parentSchema as { properties?: object })?.properties) ?? {});
      return diagnose('schemaUnknownKey', { file, range: rangeAtPath(source, [...path, key], true), contract }, key, where(path), nearest(key, allowed));
    }
    case 'type':
      return diagnose('schemaType', { file, range: rangeAtPath(source, path), contract }, name, `of type ${String((e.params as { type: string }).type)}`);
    case 'const':
      return diagnose('schemaEnum', { file, range: rangeAtPath(source, path), contract }, name, String(valueAt(source, path)), JSON.stringify((e.params as { allowedValue: unknown }).allowedValue));
    case 'enum':
      return diagnose('schemaEnum', { file, range: rangeAtPath(source, path), contract }, name, String(valueAt(source, path)), ((e.params as { allowedValues: unknown[] }).allowedValues).map((v) => JSON.stringify(v)).join(', '));
    case 'pattern':
      return diagnose('schemaPattern', { file, range: rangeAtPath(source, path), contract }, name, String(valueAt(source, path)), String((e.params as { pattern: string }).pattern));
    case 'anyOf':
    case 'oneOf':
      return diagnose('schemaNoVariant', { file, range: rangeAtPath(source, path), contract }, name, describeVariants(e));
    default:
      return diagnose('schemaOther', { file, range: rangeAtPath(source, path), contract }, name, e.message ?? e.keyword);
  }
}

function valueAt(source: SourceFile, path: string[]): unknown {
  return source.doc.getIn(path);
}

function describeVariants(e: ErrorObject): string {
  const variants = ((e.parentSchema as { anyOf?: unknown[]; oneOf?: unknown[] })?.anyOf ?? (e.parentSchema as { oneOf?: unknown[] })?.oneOf ?? []) as Array<{ $ref?: string }>;
  const names = variants.map((v) => (v.$ref ? v.$ref.split('/').pop() : 'shape')).filter(Boolean);
  return names.join(' | ') || 'see the schema';
}

/** The allowed name closest to `key` (edit distance ≤ 2), for "did you mean". */
export function nearest(key: string, allowed: string[]): string | undefined {
  let best: string | undefined;
  let bestD = 3;
  for (const a of allowed) {
    const d = distance(key.toLowerCase(), a.toLowerCase());
    if (d < bestD) {
      bestD = d;
      best = a;
    }
  }
  return best;
}

function distance(a: string, b: string): number {
  const dp = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = dp[0]!;
    dp[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = dp[j]!;
      dp[j] = Math.min(dp[j]! + 1, dp[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return dp[b.length]!;
}
