import type { GapContract, SourceAssertion } from '../model/index.js';
import type { BodyReader } from './body-reader.js';
import { type Entered, MAX_CALL_DEPTH, type ReachedCall, describeTrail, reachableCalls } from './call-graph.js';
import type { AssertionCheck, AssertionOutcome, SourceLocation } from './report.js';
import type { Found, SymbolResolver } from './resolve.js';
import type { CallGuard, FunctionDefinition } from './table.js';

const squash = (text: string): string => text.replace(/\s+/g, '');

type Part = Omit<AssertionCheck, 'contract' | 'path' | 'form' | 'summary'>;

function summary(a: SourceAssertion): string {
  switch (a.form) {
    case 'call-order':
      return `call-order: ${a.first} before ${a.then} in ${a.file} ${a.function}`;
    case 'calls':
      return `calls: ${a.function} ${a.present ? 'calls' : 'does not call'} ${a.callee} (${a.file})`;
    case 'call-branch':
      return `call-branch: ${a.function} calls ${a.callee} ${a.runs === 'when' ? `when ${a.condition}` : 'unconditionally'} (${a.file})`;
    case 'string-literals':
      return `string-literals: ${a.function} literals ${a.match} [${a.values.join(', ')}] (${a.file})`;
    case 'return-annotation':
      return `return-annotation: ${a.function} -> ${a.annotation} (${a.file})`;
    case 'symbol':
      return `symbol: ${a.symbol} ${a.present ? 'exists' : 'does not exist'} in ${a.file}`;
    case 'default':
      return `default: ${a.symbol} = ${a.value} (${a.file})`;
    case 'all':
      return `all of ${a.of.length} parts`;
  }
}

/**
 * Evaluates gap assertions, written as data, against the scanned package. A scope (file, class
 * or function) that cannot be found leaves the assertion unresolvable; a scope that exists but
 * no longer shows the fact makes it no-longer-holds.
 */
export class AssertionEvaluator {
  private readonly reached = new Map<string, ReachedCall[]>();

  constructor(private readonly resolver: SymbolResolver, private readonly bodies?: BodyReader) {}

  gap(gap: GapContract): AssertionCheck {
    return this.evaluate(gap.id, gap.assertion, []);
  }

  private evaluate(contract: string, a: SourceAssertion, path: number[]): AssertionCheck {
    const head = { contract, path, form: a.form, summary: summary(a) };
    if (a.form === 'all') {
      const parts = a.of.map((p, i) => this.evaluate(contract, p, [...path, i]));
      const outcome: AssertionOutcome = parts.some((p) => p.outcome === 'no-longer-holds') ? 'no-longer-holds' : parts.some((p) => p.outcome === 'unresolvable') ? 'unresolvable' : 'holds';
      return { ...head, outcome, parts, files: [...new Set(parts.flatMap((p) => p.files))] };
    }
    return { ...head, ...this.part(a) };
  }

  private part(a: Exclude<SourceAssertion, { form: 'all' }>): Part {
    if (a.form === 'symbol') return this.symbol(a.file, a.symbol, a.present);
    if (a.form === 'default') return this.defaultValue(a.file, a.symbol, a.value);
    const scope = this.function(a.file, a.function);
    if ('outcome' in scope) return scope;
    const { fn, at, files } = scope;
    const base = { location: at, files };
    switch (a.form) {
      case 'call-order': {
        const calls = this.reach(scope.entered);
        const first = calls.findIndex((c) => c.site.name === a.first);
        const then = calls.findIndex((c) => c.site.name === a.then);
        const holds = first >= 0 && then >= 0 && first < then;
        const detail = `${a.first}: ${seen(calls[first])}, ${a.then}: ${seen(calls[then])}`;
        return { ...base, ...trailOf(holds ? [calls[first], calls[then]] : [], files), outcome: holds ? 'holds' : 'no-longer-holds', detail };
      }
      case 'calls': {
        const call = this.reach(scope.entered).find((c) => c.site.name === a.callee);
        return { ...base, ...trailOf([call], files), outcome: Boolean(call) === a.present ? 'holds' : 'no-longer-holds', detail: call ? `${a.callee} called at ${seen(call)}` : `no call to ${a.callee} (helpers followed ${MAX_DEPTH_WORDS})` };
      }
      case 'call-branch': {
        const calls = this.reach(scope.entered).filter((c) => c.site.name === a.callee);
        if (calls.length === 0) return { ...base, outcome: 'no-longer-holds', detail: `no call to ${a.callee} (helpers followed ${MAX_DEPTH_WORDS})` };
        if (a.runs === 'unconditionally') {
          const free = calls.find((c) => c.guards.length === 0);
          return free ? { ...base, ...trailOf([free], files), outcome: 'holds', detail: `${a.callee} at ${seen(free)} runs unconditionally` } : { ...base, ...trailOf(calls, files), outcome: 'no-longer-holds', detail: calls.map((c) => `${a.callee} at ${seen(c)} runs ${branch(c.guards)}`).join('; ') };
        }
        const off = calls.find((c) => !c.guards.some((g) => guardMatches(g, a.condition)));
        return off ? { ...base, ...trailOf([off], files), outcome: 'no-longer-holds', detail: `${a.callee} at ${seen(off)} runs ${branch(off.guards)}` } : { ...base, ...trailOf(calls, files), outcome: 'holds', detail: calls.map((c) => `${a.callee} at ${seen(c)} runs ${branch(c.guards)}`).join('; ') };
      }
      case 'string-literals': {
        const seen = [...new Set(fn.literals.map((l) => l.value))];
        const want = new Set(a.values);
        const holds = a.match === 'includes' ? a.values.every((v) => seen.includes(v)) : a.match === 'excludes' ? !a.values.some((v) => seen.includes(v)) : seen.length === want.size && seen.every((v) => want.has(v));
        return { ...base, outcome: holds ? 'holds' : 'no-longer-holds', detail: `literals compared or returned: [${seen.join(', ')}]` };
      }
      case 'return-annotation':
        return { ...base, outcome: fn.returns !== undefined && squash(fn.returns) === squash(a.annotation) ? 'holds' : 'no-longer-holds', detail: `annotation: ${fn.returns ?? '(none)'}` };
    }
  }

  private function(file: string, qualname: string): { fn: FunctionDefinition; entered: Entered; at: SourceLocation; files: string[] } | Part {
    const r = this.resolver.resolveInFile(file, qualname);
    if (!r.found) return { outcome: 'unresolvable', detail: `scope ${qualname}: ${r.detail}`, files: r.files };
    const def = r.definition;
    if (def?.kind !== 'function') return { outcome: 'unresolvable', detail: `scope ${qualname} is not a def in ${r.module.file}`, files: r.files };
    return { fn: def, entered: { module: r.module, fn: def, ...(r.owner ? { owner: r.owner } : {}) }, at: location(r), files: r.files };
  }

  /** The scoped function's calls with its helpers' calls spliced in (memoised per scope). */
  private reach(entered: Entered): ReachedCall[] {
    const key = `${entered.module.file}:${entered.fn.start}`;
    let calls = this.reached.get(key);
    if (!calls) this.reached.set(key, (calls = reachableCalls(this.resolver, entered, this.bodies)));
    return calls;
  }

  private symbol(file: string, symbol: string, present: boolean): Part {
    const r = this.resolver.resolveInFile(file, symbol);
    if (r.found) return { outcome: present ? 'holds' : 'no-longer-holds', detail: `${symbol} found${r.inheritedFrom ? ` on ${r.inheritedFrom}` : ''}`, location: location(r), files: r.files };
    if (r.outcome === 'unresolvable' || r.reason === 'file-missing') return { outcome: 'unresolvable', detail: r.detail, files: r.files };
    // absent: decisive only when the enclosing scope itself exists
    const parent = symbol.split('.').slice(0, -1).join('.');
    if (parent && !this.resolver.resolveInFile(file, parent).found) return { outcome: 'unresolvable', detail: `scope ${parent} not found in ${file}`, files: r.files };
    return { outcome: present ? 'no-longer-holds' : 'holds', detail: `not found: ${r.detail}`, files: r.files };
  }

  private defaultValue(file: string, symbol: string, value: string): Part {
    const parts = symbol.split('.');
    const name = parts.pop()!;
    const scope = this.resolver.resolveInFile(file, parts.join('.'));
    if (!scope.found || !scope.definition) return { outcome: 'unresolvable', detail: scope.found ? `${parts.join('.')} names a module` : `scope ${parts.join('.')}: ${scope.detail}`, files: scope.files };
    const def = scope.definition;
    let found: string | undefined;
    let at = location(scope);
    let files = scope.files;
    if (def.kind === 'function') {
      const p = def.parameters.find((x) => x.name === name);
      if (!p) return { outcome: 'no-longer-holds', detail: `${def.qualname} has no parameter ${name}`, location: at, files };
      found = p.default;
    } else if (def.kind === 'class') {
      const member = this.resolver.member(scope.module, def, [name], new Set(), new Set());
      if (!member.found) return member.outcome === 'missing' ? { outcome: 'no-longer-holds', detail: `${def.qualname} has no attribute ${name}`, location: at, files } : { outcome: 'unresolvable', detail: member.detail, files: member.files };
      const m = member.definition;
      if (m?.kind !== 'assignment') return { outcome: 'unresolvable', detail: `${def.qualname}.${name} is not an assigned attribute`, files: member.files };
      found = m.fieldDefault ?? m.value;
      at = location(member);
      files = member.files;
    } else return { outcome: 'unresolvable', detail: `${parts.join('.')} is neither a class nor a def`, files };
    if (found === undefined) return { outcome: 'no-longer-holds', detail: `${symbol} has no default`, location: at, files };
    return { outcome: squash(found) === squash(value) ? 'holds' : 'no-longer-holds', detail: `default: ${found}`, location: at, files };
  }
}

const MAX_DEPTH_WORDS = `up to ${MAX_CALL_DEPTH} deep`;

/** `line 41`, or `vllm/x.py:41 via self.helper (...) → Class.helper` when reached through helpers. */
function seen(c: ReachedCall | undefined): string {
  if (!c) return 'no call';
  return c.trail.length === 0 ? `line ${c.site.line}` : `${c.file}:${c.site.line} via ${describeTrail(c.trail)}`;
}

/** The followed calls that decided the result, for the report's `trail`. */
function trailOf(calls: (ReachedCall | undefined)[], files: readonly string[]): { trail?: string[]; files: string[] } {
  const trail = calls.flatMap((c) => c?.trail ?? []);
  const steps = trail.map((s) => `${s.call} at ${s.file}:${s.line} → ${s.entered} (${s.enteredFile})`);
  const read = [...new Set([...files, ...trail.map((s) => s.enteredFile)])];
  return steps.length ? { trail: [...new Set(steps)], files: read } : { files: read };
}

function branch(guards: readonly CallGuard[]): string {
  if (guards.length === 0) return 'unconditionally';
  return `under ${guards.map((g) => (g.kind === 'if' ? `${g.negated ? 'not ' : ''}${g.condition}` : `${g.kind} ${g.condition}`)).join(' and ')}`;
}

/** A guard matches `not X` / `X` written in full or by its last dotted part. */
export function guardMatches(g: CallGuard, wanted: string): boolean {
  if (g.kind !== 'if') return false;
  const negated = /^not\s+/.test(wanted);
  const text = squash(negated ? wanted.replace(/^not\s+/, '') : wanted);
  const condition = squash(g.condition);
  return g.negated === negated && (condition === text || condition.endsWith(`.${text}`));
}

function location(r: Found): SourceLocation {
  return { file: r.module.file, line: r.definition?.line ?? 1, col: r.definition?.col ?? 1 };
}
