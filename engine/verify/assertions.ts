import type { GapContract, SourceAssertion } from '../model/index.js';
import type { AssertionCheck, AssertionOutcome, SourceLocation } from './report.js';
import type { Found, SymbolResolver } from './resolve.js';
import type { FunctionDefinition } from './table.js';

const squash = (text: string): string => text.replace(/\s+/g, '');

type Part = Omit<AssertionCheck, 'contract' | 'path' | 'form' | 'summary'>;

function summary(a: SourceAssertion): string {
  switch (a.form) {
    case 'call-order':
      return `call-order: ${a.first} before ${a.then} in ${a.file} ${a.function}`;
    case 'calls':
      return `calls: ${a.function} ${a.present ? 'calls' : 'does not call'} ${a.callee} (${a.file})`;
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
  constructor(private readonly resolver: SymbolResolver) {}

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
        const first = fn.calls.findIndex((c) => c.name === a.first);
        const then = fn.calls.findIndex((c) => c.name === a.then);
        const lines = (i: number) => (i < 0 ? 'no call' : `line ${fn.calls[i]!.line}`);
        const detail = `${a.first}: ${lines(first)}, ${a.then}: ${lines(then)}`;
        return { ...base, outcome: first >= 0 && then >= 0 && first < then ? 'holds' : 'no-longer-holds', detail };
      }
      case 'calls': {
        const call = fn.calls.find((c) => c.name === a.callee);
        return { ...base, outcome: Boolean(call) === a.present ? 'holds' : 'no-longer-holds', detail: call ? `${a.callee} called at line ${call.line}` : `no call to ${a.callee}` };
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

  private function(file: string, qualname: string): { fn: FunctionDefinition; at: SourceLocation; files: string[] } | Part {
    const r = this.resolver.resolveInFile(file, qualname);
    if (!r.found) return { outcome: 'unresolvable', detail: `scope ${qualname}: ${r.detail}`, files: r.files };
    const def = r.definition;
    if (def?.kind !== 'function') return { outcome: 'unresolvable', detail: `scope ${qualname} is not a def in ${r.module.file}`, files: r.files };
    return { fn: def, at: location(r), files: r.files };
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

function location(r: Found): SourceLocation {
  return { file: r.module.file, line: r.definition?.line ?? 1, col: r.definition?.col ?? 1 };
}
