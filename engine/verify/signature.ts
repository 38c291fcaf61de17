import type { Signature, SignatureParameter } from '../model/index.js';
import type { FunctionDefinition, ParsedParameter } from './table.js';

/** How the callable is reached, which decides what `inspect.signature` would bind away. */
export type Binding = 'function' | 'method' | 'classmethod' | 'staticmethod' | 'constructor';

/** A readable difference between the contract's signature and the checkout's. */
export interface SignatureDiff {
  expected: string;
  found: string;
  /** One line per difference (`parameter 3 'is_retracted': default False → True`). */
  differences: string[];
}

const last = (decorator: string): string => decorator.replace(/\(.*$/s, '').split('.').pop() ?? decorator;

/** The binding of a function found as a class member (decorators decide), or a module function. */
export function bindingOf(def: FunctionDefinition, isMember: boolean): Binding {
  if (!isMember) return 'function';
  const names = def.decorators.map(last);
  if (names.includes('staticmethod')) return 'staticmethod';
  if (names.includes('classmethod')) return 'classmethod';
  return 'method';
}

/** Whether decorators turn the method into a data attribute (`@property`). */
export function isProperty(def: FunctionDefinition): boolean {
  return def.decorators.map(last).some((d) => d === 'property' || d === 'cached_property' || d === 'setter' || d === 'getter');
}

const squash = (text: string): string => text.replace(/\s+/g, '');

/**
 * The parameters as `inspect.signature` reports them for the attribute: a classmethod's `cls`
 * and a constructor's `self` are bound away; a plain method seen on its class keeps `self`.
 * Well-behaved decorators (`functools.wraps`) keep the signature, so other decorators are ignored.
 */
export function normalise(def: FunctionDefinition, binding: Binding): { parameters: SignatureParameter[]; returns?: string; async: boolean } {
  const params: ParsedParameter[] = binding === 'classmethod' || binding === 'constructor' ? def.parameters.slice(1) : def.parameters;
  return {
    parameters: params.map((p) => ({ name: p.name, kind: p.kind, hasDefault: p.default !== undefined, ...(p.default !== undefined ? { default: p.default } : {}) })),
    ...(def.returns !== undefined ? { returns: def.returns } : {}),
    async: def.async,
  };
}

/** Python-like rendering: `(self, req, /, *args, flag=False, **kw) -> list[int]`. */
export function renderSignature(sig: { parameters: SignatureParameter[]; returns?: string; async?: boolean }, showDefaults: boolean): string {
  const out: string[] = [];
  let starDone = false;
  sig.parameters.forEach((p, i) => {
    if (p.kind === 'keyword-only' && !starDone) {
      out.push('*');
      starDone = true;
    }
    if (p.kind === 'var-positional') starDone = true;
    const prefix = p.kind === 'var-positional' ? '*' : p.kind === 'var-keyword' ? '**' : '';
    const dflt = p.hasDefault ? `=${showDefaults && p.default !== undefined ? p.default : '…'}` : '';
    out.push(`${prefix}${p.name}${dflt}`);
    const next = sig.parameters[i + 1];
    if (p.kind === 'positional-only' && next?.kind !== 'positional-only') out.push('/');
  });
  return `${sig.async ? 'async ' : ''}(${out.join(', ')})${sig.returns !== undefined ? ` -> ${sig.returns}` : ''}`;
}

/**
 * Compares the contract's expected signature with the checkout's normalised one: names, kinds
 * and default presence always; a default's text, the return annotation and `async` only when
 * the contract states them. Undefined when they agree.
 */
export function compareSignature(expected: Signature, found: { parameters: SignatureParameter[]; returns?: string; async: boolean }): SignatureDiff | undefined {
  const differences: string[] = [];
  const n = Math.max(expected.parameters.length, found.parameters.length);
  for (let i = 0; i < n; i++) {
    const e = expected.parameters[i];
    const f = found.parameters[i];
    const where = `parameter ${i + 1}`;
    if (e && !f) {
      differences.push(`${where} '${e.name}' (${e.kind}) is missing`);
      continue;
    }
    if (!e && f) {
      differences.push(`${where} '${f.name}' (${f.kind}${f.hasDefault ? ', with default' : ''}) is new`);
      continue;
    }
    if (!e || !f) continue;
    if (e.name !== f.name) differences.push(`${where}: name '${e.name}' → '${f.name}'`);
    if (e.kind !== f.kind) differences.push(`${where} '${f.name}': ${e.kind} → ${f.kind}`);
    if (e.hasDefault !== f.hasDefault) differences.push(`${where} '${f.name}': ${e.hasDefault ? 'default removed' : `default added (${f.default ?? ''})`}`);
    else if (e.hasDefault && e.default !== undefined && f.default !== undefined && squash(e.default) !== squash(f.default)) differences.push(`${where} '${f.name}': default ${e.default} → ${f.default}`);
  }
  if (expected.returns !== undefined && (found.returns === undefined || squash(expected.returns) !== squash(found.returns))) {
    differences.push(`return annotation ${expected.returns} → ${found.returns ?? '(none)'}`);
  }
  if (expected.async !== undefined && expected.async !== found.async) differences.push(expected.async ? 'no longer async' : 'now async');
  if (differences.length === 0) return undefined;
  return { expected: renderSignature(expected, true), found: renderSignature(found, true), differences };
}
