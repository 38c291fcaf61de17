import type { Contract } from '../model/index.js';
import type { Diagnostic } from '../diagnostics/index.js';
import { readContractFile } from './read.js';
import type { ContractEntry, RefusedContract } from './registry.js';
import { checkSchema } from './schema.js';

/**
 * One contract file through reading, YAML, and the JSON Schema. The document is released once
 * the value is taken (positions are parsed again on demand). Undefined, with diagnostics, when
 * the file cannot be a contract.
 */
export function loadContractFile(root: string, path: string, diagnostics: Diagnostic[], refused?: RefusedContract[]): ContractEntry | undefined {
  const source = readContractFile(root, path, diagnostics);
  if (!source) return undefined;
  const value = source.doc.toJS({ maxAliasCount: 0 }) as unknown;
  const kind = checkSchema(source, value, diagnostics);
  source.release();
  if (!kind && refused) {
    const named = refusedContract(value);
    if (named) refused.push(named);
  }
  return kind ? { contract: value as Contract, source } : undefined;
}

/** What a document that failed the schema still says it is: a kind and an id (and an engine's name). */
export function refusedContract(value: unknown): RefusedContract | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const { kind, id, name } = value as Record<string, unknown>;
  if (typeof kind !== 'string' || typeof id !== 'string') return undefined;
  return { kind, id, ...(kind === 'engine' && typeof name === 'string' ? { name } : {}) };
}
