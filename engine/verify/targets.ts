import type { ConsumedSymbol, HookContract, InterfaceContract, Signature } from '../model/index.js';
import type { ModuleIndex } from './module-index.js';
import type { TargetCheck } from './report.js';
import type { Found, SymbolResolver } from './resolve.js';
import { bindingOf, compareSignature, isProperty, normalise } from './signature.js';

/** Symbol kinds that are not Python objects: checked as literals in the tree. */
const LITERAL_KINDS = new Set(['env-var', 'cli-flag', 'entry-point-group']);
/** Hook types that attach to a callable (a function or method with a signature). */
const CALLABLE_HOOKS = new Set(['BEFORE', 'AFTER', 'AROUND', 'REPLACE', 'method-replacement', 'callback']);

/**
 * The literal values to look for in the tree: env vars and entry-point groups (CLI flags are
 * looked for where they are defined instead, see `TargetChecker.flag`).
 */
export function literalNeedles(interfaces: readonly InterfaceContract[]): string[] {
  return [...new Set(interfaces.flatMap((i) => i.symbols.filter((s) => LITERAL_KINDS.has(s.kind) && s.kind !== 'cli-flag').map((s) => s.target)))].sort();
}

/** Test code mentions flags and env vars it does not define: `tests/`, `test/`, `testing/`, `test_*.py`, `*_test.py`, `conftest.py`. */
export function isTestFile(file: string): boolean {
  return /(^|\/)(tests?|testing)\//.test(file) || /(^|\/)(test_[^/]*|[^/]*_test|conftest)\.py$/.test(file);
}

const DATACLASS = /(^|\.)dataclass\b/;
/** Argument classes: server-args and engine-args dataclasses generate their flags from their fields (`ServerArgs`, `EngineArgs`). */
const ARGS_CLASS = /(^|\.)\w*(Args|Arguments)$/;

type Expectation = 'callable' | 'class' | 'any';

interface CheckInput {
  contract: string;
  role: TargetCheck['role'];
  target: string;
  expects: TargetCheck['expects'];
  shape: Expectation;
  signature?: Signature;
  informational: boolean;
}

/** Checks dotted Python targets and literal symbols against the scanned package. */
export class TargetChecker {
  constructor(private readonly resolver: SymbolResolver, private readonly index: ModuleIndex) {}

  hook(hook: HookContract): TargetCheck[] {
    const informational = hook.disposition.state === 'removed';
    const shape: Expectation = CALLABLE_HOOKS.has(hook.hookType) ? 'callable' : 'any';
    const main = this.python({ contract: hook.id, role: 'hook-target', target: hook.target, expects: 'hook', shape, ...(hook.signature ? { signature: hook.signature } : {}), informational });
    const also = (hook.alsoTargets ?? []).map((target) => this.python({ contract: hook.id, role: 'hook-also-target', target, expects: 'hook', shape: 'any', informational }));
    return [main, ...also];
  }

  interface(contract: InterfaceContract): TargetCheck[] {
    return contract.symbols.map((symbol) => this.symbol(contract.id, symbol));
  }

  private symbol(contract: string, symbol: ConsumedSymbol): TargetCheck {
    const base = { contract, role: 'interface-symbol' as const, target: symbol.target, expects: symbol.kind, informational: false };
    if (symbol.kind === 'cli-flag') return this.flag(base);
    if (LITERAL_KINDS.has(symbol.kind)) return this.literal(base, symbol.kind);
    const shape: Expectation = symbol.kind === 'class' ? 'class' : symbol.kind === 'attribute' ? 'any' : 'callable';
    return this.python({ ...base, shape, ...(symbol.signature ? { signature: symbol.signature } : {}) });
  }

  /**
   * CLI flags count only where they are defined, outside test code: an `add_argument('--flag')`
   * call, or a field named like the flag with underscores of an arguments dataclass (`*Args`,
   * `*Arguments`: server-args and engine-args classes generate their flags from fields). A flag a
   * test or a help text merely mentions, or a same-named field of another dataclass, is missing.
   */
  private flag(base: Omit<TargetCheck, 'outcome' | 'files'>): TargetCheck {
    const modules = [...this.index.byFile.values()].filter((m) => !isTestFile(m.file));
    for (const module of modules) {
      const hit = module.scan.flags.find((f) => f.flag === base.target);
      if (hit) return { ...base, outcome: 'present', location: { file: module.file, line: hit.line, col: hit.col }, detail: 'add_argument', files: [module.file] };
    }
    const field = base.target.replace(/^-+/, '').replace(/-/g, '_');
    for (const module of modules) {
      for (const def of module.scan.definitions) {
        if (def.kind !== 'assignment' || !def.qualname.endsWith(`.${field}`)) continue;
        const owner = module.byName.get(def.qualname.slice(0, -field.length - 1))?.find((d) => d.kind === 'class');
        if (owner?.kind === 'class' && ARGS_CLASS.test(owner.qualname) && owner.decorators.some((d) => DATACLASS.test(d))) return { ...base, outcome: 'present', location: { file: module.file, line: def.line, col: def.col }, detail: `dataclass field ${def.qualname}`, files: [module.file] };
      }
    }
    return { ...base, outcome: 'missing', reason: 'attribute-missing', detail: `no add_argument('${base.target}') and no field ${field} of an arguments dataclass in ${this.index.tree.packageDir} outside tests`, files: [] };
  }

  /**
   * Env vars and entry-point groups: present when the exact value is a string literal somewhere
   * in the package; env vars also when a module or class binds that exact name (settings
   * classes). Otherwise missing.
   */
  private literal(base: Omit<TargetCheck, 'outcome' | 'files'>, kind: string): TargetCheck {
    for (const module of this.index.byFile.values()) {
      const hit = module.scan.needles.find((n) => n.needle === base.target);
      if (hit) return { ...base, outcome: 'present', location: { file: module.file, line: hit.line, col: hit.col }, detail: 'string literal', files: [module.file] };
    }
    if (kind === 'env-var') {
      for (const module of this.index.byFile.values()) {
        const def = module.scan.definitions.find((d) => d.kind === 'assignment' && d.qualname.split('.').pop() === base.target);
        if (def) return { ...base, outcome: 'present', location: { file: module.file, line: def.line, col: def.col }, detail: `bound as ${def.qualname}`, files: [module.file] };
      }
    }
    return { ...base, outcome: 'missing', reason: 'attribute-missing', detail: `no string literal '${base.target}' in ${this.index.tree.packageDir}`, files: [] };
  }

  private python(input: CheckInput): TargetCheck {
    const { signature, shape, ...base } = input;
    const r = this.resolver.resolve(input.target);
    if (!r.found) return { ...base, outcome: r.outcome === 'missing' ? 'missing' : 'unresolvable-statically', reason: r.reason, detail: r.detail, files: r.files };
    const def = r.definition;
    const location = def ? { file: r.module.file, line: def.line, col: def.col } : { file: r.module.file, line: 1, col: 1 };
    const found = { ...base, location, files: r.files, ...(r.inheritedFrom ? { inheritedFrom: r.inheritedFrom } : {}) };
    if (!def) return shape === 'any' ? { ...found, outcome: 'present', detail: 'module' } : { ...found, outcome: 'signature-changed', reason: 'kind-changed', detail: `expected a ${shape}, found a module` };
    if (shape === 'class' && def.kind !== 'class') return this.wrongKind(found, def.kind, 'class');
    if (shape === 'callable') {
      if (def.kind === 'assignment') return { ...found, outcome: 'unresolvable-statically', reason: 'runtime-assignment', detail: `${def.qualname} is assigned a value at run time (${r.module.file}:${def.line})` };
      if (def.kind === 'class' && !signature) return this.wrongKind(found, 'class', 'callable');
      if (def.kind === 'function' && isProperty(def)) return this.wrongKind(found, 'property', 'callable');
    }
    if (!signature) return { ...found, outcome: 'present' };
    return this.compare(found, r, signature);
  }

  private compare(found: Omit<TargetCheck, 'outcome'>, r: Found, signature: Signature): TargetCheck {
    const def = r.definition!;
    if (def.kind === 'function') return this.withSignature(found, signature, normalise(def, bindingOf(def, r.owner !== undefined)));
    if (def.kind !== 'class') return { ...found, outcome: 'unresolvable-statically', reason: 'runtime-assignment', detail: `${def.qualname} has no def to read a signature from` };
    // a class is called through __init__ (its own or inherited); @dataclass writes one at run time
    const init = this.resolver.member(r.module, def, ['__init__'], new Set(), new Set());
    const files = [...new Set([...found.files, ...init.files])];
    const generated = def.decorators.some((d) => /(^|\.)dataclass\b/.test(d));
    if (init.found && init.definition?.kind === 'function') return this.withSignature({ ...found, files }, signature, normalise(init.definition, 'constructor'));
    if (!init.found && init.outcome === 'missing' && !generated) return this.withSignature({ ...found, files }, signature, { parameters: [], async: false });
    if (generated) return { ...found, files, outcome: 'unresolvable-statically', reason: 'generated-init', detail: `${def.qualname}.__init__ is generated by @dataclass` };
    if (init.found) return { ...found, files, outcome: 'unresolvable-statically', reason: 'runtime-assignment', detail: `${def.qualname}.__init__ is not a plain def` };
    return { ...found, files, outcome: 'unresolvable-statically', reason: init.reason, detail: init.detail };
  }

  private withSignature(found: Omit<TargetCheck, 'outcome'>, expected: Signature, actual: ReturnType<typeof normalise>): TargetCheck {
    const diff = compareSignature(expected, actual);
    return diff ? { ...found, outcome: 'signature-changed', diff } : { ...found, outcome: 'present' };
  }

  private wrongKind(found: Omit<TargetCheck, 'outcome'>, is: string, expected: string): TargetCheck {
    return { ...found, outcome: 'signature-changed', reason: 'kind-changed', detail: `expected a ${expected}, found ${is === 'assignment' ? 'an assignment' : `a ${is}`}` };
  }
}
