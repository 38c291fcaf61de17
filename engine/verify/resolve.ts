import type { AssignmentDefinition, ClassDefinition, Definition, FunctionDefinition } from './table.js';
import type { ModuleIndex, ModuleInfo } from './module-index.js';

/** Why a symbol cannot be decided from the source alone. */
export type UnresolvableReason =
  | 'runtime-assignment'
  | 'module-getattr'
  | 'class-getattr'
  | 'conditional-definition'
  | 'extension-module'
  | 'external-base'
  | 'external-import'
  | 'parse-error'
  | 'file-skipped'
  | 'generated-init';

/** Why a symbol is known to be absent. */
export type MissingReason = 'module-missing' | 'attribute-missing' | 'file-missing';

/** Bases that add no attributes a contract could consume. */
const INERT_BASES = new Set(['object', 'ABC', 'abc.ABC', 'Generic', 'typing.Generic', 'Protocol', 'typing.Protocol']);

export interface Found {
  found: true;
  module: ModuleInfo;
  /** Absent when the path names a module. */
  definition?: Definition;
  /** `Module.Class` the member was found on, when it was inherited. */
  inheritedFrom?: string;
  /** For members: the class that owns the definition. */
  owner?: ClassDefinition;
  /** Every file consulted on the way. */
  files: string[];
}

export interface NotFound {
  found: false;
  outcome: 'missing' | 'unresolvable';
  reason: UnresolvableReason | MissingReason;
  /** The name that failed and where, for the reader (`GPUModelRunner.update_requests in vllm/...`). */
  detail: string;
  files: string[];
}

export type Resolution = Found | NotFound;

function missing(reason: MissingReason, detail: string, files: string[]): NotFound {
  return { found: false, outcome: 'missing', reason, detail, files };
}

function unresolvable(reason: UnresolvableReason, detail: string, files: string[]): NotFound {
  return { found: false, outcome: 'unresolvable', reason, detail, files };
}

/** True when a parse error falls inside the definition (its shape cannot be trusted). */
export function brokenBy(module: ModuleInfo, start: number, end: number): boolean {
  return module.scan.errorOffsets.some((o) => o >= start && o < end);
}

/**
 * Resolves dotted Python paths against the scanned package the way an import followed by
 * attribute access would, without running anything: modules, `__init__` re-exports, imports,
 * nested classes, and members inherited from bases found in the same tree (best effort,
 * left-to-right depth-first). Anything that depends on run time is reported as such.
 */
export class SymbolResolver {
  constructor(private readonly index: ModuleIndex) {}

  /** `pkg.mod.Class.method`: the longest importable prefix, then attributes. */
  resolve(path: string): Resolution {
    const parts = path.split('.');
    for (let i = parts.length; i >= 1; i--) {
      const name = parts.slice(0, i).join('.');
      const module = this.index.modules.get(name);
      if (module) return this.within(module, parts.slice(i), new Set());
      if (this.index.tree.extensionModules.has(name)) return unresolvable('extension-module', `${name} is a compiled extension module`, []);
    }
    return missing('module-missing', `no module for ${path} under ${this.index.tree.packageDir}`, []);
  }

  /** A `Class.method`-style path inside the module of one checkout file. */
  resolveInFile(file: string, path: string): Resolution {
    const module = this.index.byFile.get(file);
    if (!module) return missing('file-missing', `no file ${file} in ${this.index.tree.packageDir}`, []);
    return this.within(module, path.split('.'), new Set());
  }

  /** Attributes `attrs` looked up in `module`'s namespace. */
  within(module: ModuleInfo, attrs: string[], seen: Set<string>): Resolution {
    // a namespace package is a folder: nothing of it is read or hashed
    const files = module.namespace ? [] : [module.file];
    const key = `${module.name}:${attrs.join('.')}`;
    if (seen.has(key)) return unresolvable('runtime-assignment', `import cycle at ${attrs.join('.')} in ${module.file}`, files);
    seen.add(key);
    const [name, ...rest] = attrs;
    if (name === undefined) return { found: true, module, files };
    const skipped = this.skipped(module, name, files);
    if (skipped) return skipped;
    const defs = module.byName.get(name);
    if (!defs) {
      const sub = this.index.modules.get(`${module.name}.${name}`);
      if (module.isPackage && sub) return merge(files, this.within(sub, rest, seen));
      for (const star of module.byName.get('*') ?? []) {
        if (star.kind !== 'import') continue;
        const target = this.index.modules.get(this.index.absoluteModule(module, star.module));
        if (!target) continue;
        const r = this.within(target, attrs, seen);
        if (r.found) return merge(files, r);
      }
      return this.absent(module, name, `${name} in ${module.file}`, module.byName.has('__getattr__') ? 'module-getattr' : undefined, files);
    }
    const chosen = pick(defs);
    if ('conditional' in chosen) return unresolvable('conditional-definition', `${name} is defined conditionally in ${module.file}:${chosen.conditional.line}`, files);
    return merge(files, this.follow(module, chosen.definition, rest, seen));
  }

  private follow(module: ModuleInfo, def: Definition, rest: string[], seen: Set<string>): Resolution {
    const files = [module.file];
    switch (def.kind) {
      case 'class':
        return rest.length === 0 ? this.found(module, def, files) : this.member(module, def, rest, seen, new Set());
      case 'function':
        return rest.length === 0 ? this.found(module, def, files) : unresolvable('runtime-assignment', `${def.qualname}.${rest.join('.')}: attributes of a function are set at run time (${module.file}:${def.line})`, files);
      case 'assignment':
        if (def.value !== undefined && /^[A-Za-z_][A-Za-z0-9_]*$/.test(def.value) && def.value !== def.qualname.split('.').pop()) {
          // `Alias = Name`: an alias of something in the same namespace
          return this.within(module, [def.value, ...rest], seen);
        }
        if (rest.length === 0) return { found: true, module, definition: def, files };
        return unresolvable('runtime-assignment', `${def.qualname} is assigned at run time (${module.file}:${def.line})`, files);
      case 'import': {
        const target = this.index.absoluteModule(module, def.module);
        const path = def.name ? [...target.split('.'), def.name, ...rest] : [...target.split('.'), ...rest];
        if (!this.index.inPackage(target)) return unresolvable('external-import', `${def.qualname} is imported from ${target}, outside the checkout's package`, files);
        const r = this.resolvePathFrom(path, seen);
        return r;
      }
    }
  }

  private resolvePathFrom(parts: string[], seen: Set<string>): Resolution {
    for (let i = parts.length; i >= 1; i--) {
      const module = this.index.modules.get(parts.slice(0, i).join('.'));
      if (module) return this.within(module, parts.slice(i), seen);
      if (this.index.tree.extensionModules.has(parts.slice(0, i).join('.'))) return unresolvable('extension-module', `${parts.slice(0, i).join('.')} is a compiled extension module`, []);
    }
    return missing('module-missing', `no module for ${parts.join('.')} under ${this.index.tree.packageDir}`, []);
  }

  /** `attrs` on a class: its body, `self.X` set in `__init__`, then its bases. */
  member(module: ModuleInfo, cls: ClassDefinition, attrs: string[], seen: Set<string>, classes: Set<string>): Resolution {
    const files = [module.file];
    const classKey = `${module.name}.${cls.qualname}`;
    if (classes.has(classKey)) return unresolvable('runtime-assignment', `class hierarchy cycle at ${cls.qualname} in ${module.file}`, files);
    classes.add(classKey);
    const [name, ...rest] = attrs;
    if (name === undefined) return this.found(module, cls, files);
    const defs = module.byName.get(`${cls.qualname}.${name}`);
    if (defs) {
      const chosen = pick(defs);
      if ('conditional' in chosen) return unresolvable('conditional-definition', `${cls.qualname}.${name} is defined conditionally in ${module.file}:${chosen.conditional.line}`, files);
      const def = chosen.definition;
      if (def.kind === 'class') return rest.length === 0 ? this.found(module, def, files) : this.member(module, def, rest, seen, classes);
      if (rest.length > 0) return unresolvable('runtime-assignment', `${def.qualname}.${rest.join('.')} is an attribute of a value set at run time`, files);
      if (def.kind === 'function') {
        const r = this.found(module, def, files);
        return r.found ? { ...r, owner: cls } : r;
      }
      return { found: true, module, definition: def, owner: cls, files };
    }
    const init = module.byName.get(`${cls.qualname}.__init__`)?.at(-1);
    if (rest.length === 0 && init?.kind === 'function' && init.selfAttributes.includes(name)) {
      const instance: AssignmentDefinition = { kind: 'assignment', qualname: `${cls.qualname}.${name}`, conditional: false, start: init.start, end: init.end, line: init.line, col: init.col };
      return { found: true, module, definition: instance, owner: cls, files };
    }
    let blocked: NotFound | undefined;
    for (const base of cls.bases) {
      if (INERT_BASES.has(base)) continue;
      const alternatives = this.alternatives(module, base);
      if (alternatives) {
        // a base bound under `if`/`try`: the member counts when every alternative has it, is missing when none does
        const r = this.memberOfAlternatives(module, cls, base, alternatives, attrs, seen, classes);
        files.push(...r.files);
        if (r.found) return merge(files, r);
        if (r.outcome === 'unresolvable') blocked ??= r;
        continue;
      }
      const r = this.within(module, base.split('.'), new Set(seen));
      files.push(...r.files);
      if (!r.found || r.definition?.kind !== 'class') {
        const reason = r.found || r.outcome === 'missing' || r.reason === 'external-import' ? 'external-base' : (r.reason as UnresolvableReason);
        blocked ??= unresolvable(reason, `base ${base} of ${cls.qualname}: ${r.found ? 'not a class in the tree' : r.detail}`, files);
        continue;
      }
      const inherited = this.member(r.module, r.definition, attrs, seen, classes);
      if (inherited.found) return merge(files, { ...inherited, inheritedFrom: inherited.inheritedFrom ?? `${r.module.name}.${r.definition.qualname}` });
      if (inherited.outcome === 'unresolvable') blocked ??= inherited;
    }
    if (blocked) return { ...blocked, files: [...new Set([...files, ...blocked.files])] };
    const getattr = module.byName.has(`${cls.qualname}.__getattr__`) || module.byName.has(`${cls.qualname}.__getattribute__`);
    if (brokenBy(module, cls.start, cls.end)) return unresolvable('parse-error', `${cls.qualname}.${name}: ${module.file} does not parse inside ${cls.qualname}`, files);
    return getattr ? unresolvable('class-getattr', `${cls.qualname} defines __getattr__ (${module.file}:${cls.line})`, files) : missing('attribute-missing', `${cls.qualname}.${name} in ${module.file}`, files);
  }

  /** The bindings a base name may have at run time, when its module binds it conditionally; undefined when one binding is in effect. */
  private alternatives(module: ModuleInfo, base: string): Definition[] | undefined {
    const [head] = base.split('.');
    const defs = module.byName.get(head!);
    if (!defs || !('conditional' in pick(defs))) return undefined;
    const lastPlain = defs.map((d) => !d.conditional).lastIndexOf(true);
    return defs.slice(Math.max(lastPlain, 0));
  }

  private memberOfAlternatives(module: ModuleInfo, cls: ClassDefinition, base: string, alternatives: Definition[], attrs: string[], seen: Set<string>, classes: Set<string>): Resolution {
    const files: string[] = [];
    const [, ...rest] = base.split('.');
    const hits: Found[] = [];
    const misses: string[] = [];
    for (const alt of alternatives) {
      const r = this.follow(module, alt, rest, new Set(seen));
      files.push(...r.files);
      const where = `${module.file}:${alt.line}`;
      if (!r.found || r.definition?.kind !== 'class') {
        const reason = r.found || r.outcome === 'missing' || r.reason === 'external-import' ? 'external-base' : (r.reason as UnresolvableReason);
        return unresolvable(reason, `base ${base} of ${cls.qualname} (alternative at ${where}): ${r.found ? 'not a class in the tree' : r.detail}`, [...new Set([...files, ...r.files])]);
      }
      const inherited = this.member(r.module, r.definition, attrs, seen, new Set(classes));
      files.push(...inherited.files);
      if (inherited.found) hits.push({ ...inherited, inheritedFrom: inherited.inheritedFrom ?? `${r.module.name}.${r.definition.qualname}` });
      else if (inherited.outcome === 'unresolvable') return { ...inherited, files: [...new Set([...files, ...inherited.files])] };
      else misses.push(`${r.module.name}.${r.definition.qualname} (bound at ${where})`);
    }
    const all = [...new Set(files)];
    if (hits.length === alternatives.length) return { ...hits[0]!, files: [...new Set([...all, ...hits[0]!.files])] };
    if (hits.length === 0) return missing('attribute-missing', `${cls.qualname}.${attrs.join('.')}: missing in every alternative of base ${base} (${alternatives.length} bindings in ${module.file})`, all);
    return unresolvable('conditional-definition', `${cls.qualname}.${attrs.join('.')} is on ${hits.map((h) => h.inheritedFrom).join(', ')} but not on ${misses.join(', ')}: base ${base} is bound under a run-time condition`, all);
  }

  private found(module: ModuleInfo, def: ClassDefinition | FunctionDefinition, files: string[]): Resolution {
    if (brokenBy(module, def.start, def.end)) return unresolvable('parse-error', `${module.file} does not parse inside ${def.qualname} (line ${def.line})`, files);
    return { found: true, module, definition: def, files };
  }

  private skipped(module: ModuleInfo, name: string, files: string[]): NotFound | undefined {
    if (module.scan.status === 'parsed') return undefined;
    return unresolvable('file-skipped', `${name}: ${module.file} was not parsed (${module.scan.status})`, files);
  }

  private absent(module: ModuleInfo, name: string, detail: string, dynamic: UnresolvableReason | undefined, files: string[]): NotFound {
    if (dynamic) return unresolvable(dynamic, `${detail}: the module defines __getattr__`, files);
    if (module.scan.syntaxErrors.length) return unresolvable('parse-error', `${detail}: the file does not parse (line ${module.scan.syntaxErrors[0]!.line})`, files);
    if (module.namespace) return missing('module-missing', `no module ${module.name}.${name}: ${module.name} is a namespace package (${module.file}, no __init__.py) with no such submodule or subpackage`, files);
    // a package without the name has no such submodule either
    return module.isPackage ? missing('module-missing', `no module or attribute ${module.name}.${name} (${module.file})`, files) : missing('attribute-missing', detail, files);
  }
}

/** The binding in effect: the last unconditional one, unless a conditional rebinding follows it. */
function pick(defs: Definition[]): { definition: Definition } | { conditional: Definition } {
  let last: Definition | undefined;
  let lastConditional: Definition | undefined;
  for (const d of defs) {
    if (d.conditional) lastConditional = d;
    else {
      last = d;
      lastConditional = undefined;
    }
  }
  if (lastConditional) return { conditional: lastConditional };
  return { definition: last! };
}

function merge(files: string[], r: Resolution): Resolution {
  return { ...r, files: [...new Set([...files, ...r.files])] };
}
