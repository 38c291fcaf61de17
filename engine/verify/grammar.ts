import { createRequire } from 'node:module';
import { Language, Parser } from 'web-tree-sitter';
import { type Diagnostic, diagnose } from '../diagnostics/index.js';

/**
 * The Python grammar verification is written against. The symbol extraction depends on node
 * and field names of this grammar release, so web-tree-sitter and tree-sitter-python are pinned
 * together and the loaded grammar is checked at start-up instead of failing later on a renamed node.
 */
export const PINNED_GRAMMAR = { name: 'python', abi: 15, version: '0.25.0' } as const;

/** What the loaded grammar says about itself. */
export interface GrammarIdentity {
  name: string | null;
  abi: number;
  /** `major.minor.patch` from the grammar's metadata, when it carries one. */
  version: string | null;
}

/** The grammar could not be used: carries the diagnostic the CLI prints. */
export class GrammarMismatchError extends Error {
  constructor(readonly diagnostic: Diagnostic) {
    super(diagnostic.message);
    this.name = 'GrammarMismatchError';
  }
}

/** A diagnostic when `actual` is not the pinned grammar, else undefined. */
export function checkGrammar(actual: GrammarIdentity, pinned: GrammarIdentity = PINNED_GRAMMAR): Diagnostic | undefined {
  if (actual.abi !== pinned.abi || actual.name !== pinned.name || (actual.version !== null && actual.version !== pinned.version)) {
    return diagnose('grammarMismatch', {}, `${actual.name ?? '?'} ${actual.version ?? '?'} (ABI ${actual.abi})`, `${pinned.name} ${pinned.version ?? '?'} (ABI ${pinned.abi})`);
  }
  return undefined;
}

/** Absolute path of tree-sitter-python's wasm. */
export function pythonWasmPath(): string {
  return createRequire(import.meta.url).resolve('tree-sitter-python/tree-sitter-python.wasm');
}

/**
 * A parser for the pinned Python grammar; throws `GrammarMismatchError` when the installed
 * grammar is another one. Each worker calls this once.
 */
export async function loadPythonParser(wasmPath: string = pythonWasmPath()): Promise<Parser> {
  await Parser.init();
  let language: Language;
  try {
    language = await Language.load(wasmPath);
  } catch (error) {
    // web-tree-sitter refuses grammars outside its ABI range before we can ask the version.
    throw new GrammarMismatchError(diagnose('grammarUnloadable', { file: wasmPath }, (error as Error).message, `${PINNED_GRAMMAR.name} ${PINNED_GRAMMAR.version} (ABI ${PINNED_GRAMMAR.abi})`));
  }
  const meta = language.metadata;
  const mismatch = checkGrammar({ name: language.name, abi: language.abiVersion, version: meta ? `${meta.major_version}.${meta.minor_version}.${meta.patch_version}` : null });
  if (mismatch) throw new GrammarMismatchError({ ...mismatch, file: wasmPath });
  const parser = new Parser();
  parser.setLanguage(language);
  return parser;
}
