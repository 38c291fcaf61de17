/**
 * JSON Schema for each contract kind, generated from `engine/model` with
 * typescript-json-schema: required fields, no additional properties, strict nulls.
 * The TypeScript types are the single source of truth; `contracts/schema/` is their output.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONTRACT_KINDS, KIND_TYPE_NAMES, type ContractKind } from '../../engine/model/index.js';
import { UsageDiagnostic, diagnose } from '../../engine/diagnostics/index.js';

const require = createRequire(import.meta.url);

/** Project root (two levels above this file, in source and in `dist/`). */
function projectRoot(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const up = here.includes(`${join('dist', 'generators')}`) ? '../../..' : '../..';
  return join(here, up);
}

export interface SchemaFile {
  /** File name under `contracts/schema/`. */
  name: string;
  /** Serialized content, with a trailing newline. */
  text: string;
}

const HEADER = 'Generated from engine/model by `npm run schema`; do not edit.';

/** Generates every schema file (one per kind, plus `contract.json`, the union). */
export function generateSchemas(): SchemaFile[] {
  // typescript-json-schema is CommonJS and pulls in the TypeScript compiler: load it only here.
  // It is a development dependency: the schema is generated from the model's sources in a checkout.
  let TJS: typeof import('typescript-json-schema');
  try {
    TJS = require('typescript-json-schema') as typeof import('typescript-json-schema');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw error;
    throw new UsageDiagnostic(diagnose('schemaToolMissing', {}, 'typescript-json-schema'));
  }
  const root = projectRoot();
  const program = TJS.getProgramFromFiles([join(root, 'engine/model/index.ts')], {
    strict: true,
    strictNullChecks: true,
    skipLibCheck: true,
    module: 199 /* NodeNext */,
    moduleResolution: 99 /* NodeNext */,
    target: 9 /* ES2022 */,
  }, root);
  const settings = {
    required: true,
    noExtraProps: true,
    strictNullChecks: true,
    ref: true,
    aliasRef: false,
    topRef: false,
    titles: false,
    defaultProps: false,
    constAsEnum: false,
    uniqueNames: false,
    ignoreErrors: false,
  } satisfies Partial<import('typescript-json-schema').Args>;
  const generator = TJS.buildGenerator(program, settings);
  if (!generator) throw new Error('typescript-json-schema could not build a generator over engine/model');
  const files: SchemaFile[] = [];
  for (const kind of CONTRACT_KINDS) {
    const schema = generator.getSchemaForSymbol(KIND_TYPE_NAMES[kind]);
    files.push({ name: `${kind}.json`, text: serialize(kind, schema as Record<string, unknown>) });
  }
  const union = generator.getSchemaForSymbol('Contract');
  files.push({ name: 'contract.json', text: serialize('contract', union as Record<string, unknown>) });
  return files;
}

function serialize(kind: ContractKind | 'contract', schema: Record<string, unknown>): string {
  const { $schema, ...rest } = schema;
  const ordered = {
    $schema: $schema ?? 'http://json-schema.org/draft-07/schema#',
    $id: `https://orbitkv.dev/contracts/schema/${kind}.json`,
    $comment: HEADER,
    ...rest,
  };
  return `${JSON.stringify(sortDefinitions(ordered), null, 2)}\n`;
}

/** Sorts `definitions` by name so output never depends on the compiler's symbol order. */
function sortDefinitions<T extends Record<string, unknown>>(schema: T): T {
  const defs = schema['definitions'] as Record<string, unknown> | undefined;
  if (!defs) return schema;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(defs).sort()) sorted[key] = defs[key];
  return { ...schema, definitions: sorted };
}
