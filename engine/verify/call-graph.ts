import type { BodyReader } from './body-reader.js';
import type { ModuleInfo } from './module-index.js';
import type { SymbolResolver } from './resolve.js';
import type { CallGuard, CallSite, ClassDefinition, FunctionDefinition } from './table.js';

/**
 * How many helper calls deep assertions look: enough for a function that calls a helper that
 * calls the helper doing the work (V1 runner → context-manager wrapper → its generator), not so
 * deep that a match far away in the call graph decides a fact about the scoped function.
 */
export const MAX_CALL_DEPTH = 3;

/** A function as the call walk enters it: where it lives and the class it was found on. */
export interface Entered {
  module: ModuleInfo;
  fn: FunctionDefinition;
  /** The class whose member this is (for `self.` / `cls.` calls inside it). */
  owner?: ClassDefinition;
}

/** One helper call the walk followed: the call and the function it entered. */
export interface Step {
  /** The call as written (`self._do_release`, `kv_cache_builder.build_kv_cache`). */
  call: string;
  /** Where the call is. */
  file: string;
  line: number;
  /** The function entered (`DecodeTransferQueue._do_release`) and its file. */
  entered: string;
  enteredFile: string;
}

/** A call site reached from the scoped function, directly (`trail` empty) or through helpers. */
export interface ReachedCall {
  site: CallSite;
  file: string;
  /** The helper calls followed to get here, outermost first. */
  trail: Step[];
  /** The conditions along the whole path: each followed call's own, then the site's. */
  guards: CallGuard[];
}

const written = (c: CallSite): string => (c.receiver ? `${c.receiver}.${c.name}` : c.name);

/**
 * The calls a function makes, in evaluation order, with the calls of the helpers it calls
 * spliced in where each helper is called: module functions (`helper()`, `module.helper()`),
 * methods of its own class or bases (`self.x()`, `cls.x()`) and of named classes
 * (`Mixin.x()`). Each function is entered once per walk (the first call decides order), and at
 * most `MAX_CALL_DEPTH` helpers deep. Calls on other objects (`self.pool.free()`) are not
 * followed: their target is a run-time value.
 */
export function reachableCalls(resolver: SymbolResolver, start: Entered, bodies?: BodyReader, depth = MAX_CALL_DEPTH): ReachedCall[] {
  const out: ReachedCall[] = [];
  const entered = new Set<string>([key(start)]);
  const walk = (at: Entered, trail: Step[], guards: CallGuard[], left: number): void => {
    if (!at.fn.bodyRead) bodies?.ensure(at.module);
    for (const site of at.fn.calls) {
      const path = [...guards, ...site.guards];
      out.push({ site, file: at.module.file, trail, guards: path });
      if (left === 0) continue;
      const target = calleeOf(resolver, at, site);
      if (!target || entered.has(key(target))) continue;
      entered.add(key(target));
      const step: Step = { call: written(site), file: at.module.file, line: site.line, entered: target.fn.qualname, enteredFile: target.module.file };
      walk(target, [...trail, step], path, left - 1);
    }
  };
  walk(start, [], [], depth);
  return out;
}

function key(e: Entered): string {
  return `${e.module.file}:${e.fn.start}`;
}

/** The function a call enters, when the source says statically which one it is. */
export function calleeOf(resolver: SymbolResolver, at: Entered, site: CallSite): Entered | undefined {
  const receiver = site.receiver;
  if (receiver === 'self' || receiver === 'cls') {
    if (!at.owner) return undefined;
    const r = resolver.member(at.module, at.owner, [site.name], new Set(), new Set());
    return r.found && r.definition?.kind === 'function' ? { module: r.module, fn: r.definition, ...(r.owner ? { owner: r.owner } : {}) } : undefined;
  }
  if (receiver !== undefined && !/^[A-Za-z_]\w*$/.test(receiver)) return undefined;
  const r = resolver.within(at.module, receiver === undefined ? [site.name] : [receiver, site.name], new Set());
  if (!r.found || r.definition?.kind !== 'function') return undefined;
  return { module: r.module, fn: r.definition, ...(r.owner ? { owner: r.owner } : {}) };
}

/** `a → b (file:line)`, for the reader. */
export function describeTrail(trail: readonly Step[]): string {
  return trail.map((s) => `${s.call} (${s.file}:${s.line}) enters ${s.entered}`).join('; ');
}
