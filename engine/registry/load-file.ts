import type { Contract } from '../model/index.js';
import type { Diagnostic } from '../diagnostics/index.js';
import { readContractFile } from './read.js';
import type { ContractEntry } from './registry.js';
import { checkSchema } from './schema.js';

/**
 * One contract file through reading, YAML, and the JSON Schema. The document is released once
 * the value is taken (positions are parsed again on demand). Undefined, with diagnostics, when
 * the file cannot be a contract.
 */
export function loadContractFile(root: string, path: string, diagnostics: Diagnostic[]): ContractEntry | undefined {
  const source = readContractFile(root, path, diagnostics);
  if (!source) return undefined;
  const value = source.doc.toJS({ maxAliasCount: 0 }) as unknown;
  const kind = checkSchema(source, value, diagnostics);
  source.release();
  return kind ? { contract: value as Contract, source } : undefined;
}
