import type { Node } from 'web-tree-sitter';
import type { CallGuard, CallSite, FlagSite, FunctionDefinition, LiteralSite, SourcePoint } from './table.js';

/** Nodes that open a new scope: calls inside them do not run when the enclosing function runs. */
const SCOPES = ['function_definition', 'class_definition', 'lambda'];
const BODY_NODES = ['call', 'comparison_operator', 'return_statement', 'case_pattern'];

/** 1-based line and column of a node. */
export function point(node: Node): SourcePoint {
  return { line: node.startPosition.row + 1, col: node.startPosition.column + 1 };
}

/** A function found by the structural pass, with its node while the tree is alive. */
export interface FunctionScan {
  def: FunctionDefinition;
  node: Node;
  bodyStart: number;
  callEnds: number[];
}

/** A plain string literal's value; undefined for f-strings (their value is not static). */
export function stringValue(node: Node): string | undefined {
  if (node.type !== 'string') return undefined;
  let value = '';
  for (const child of node.namedChildren) {
    if (!child) continue;
    if (child.type === 'interpolation') return undefined;
    if (child.type === 'string_content') value += child.text;
  }
  return value;
}

function literalsOf(node: Node): Node[] {
  if (node.type === 'comparison_operator') {
    const out: Node[] = [];
    for (const operand of node.namedChildren) {
      if (!operand) continue;
      if (operand.type === 'string') out.push(operand);
      else if (operand.type === 'tuple' || operand.type === 'list' || operand.type === 'set') for (const e of operand.namedChildren) if (e?.type === 'string') out.push(e);
    }
    return out;
  }
  if (node.type === 'return_statement') {
    const value = node.namedChild(0);
    return value?.type === 'string' ? [value] : [];
  }
  return node.descendantsOfType('string').filter((n): n is Node => n !== null);
}

/** Comprehensions run their element expression once per item: a loop. */
const COMPREHENSIONS = new Set(['list_comprehension', 'set_comprehension', 'dictionary_comprehension', 'generator_expression']);
/** The longest receiver text kept: enough for `self.a.b`, not a whole expression. */
const MAX_RECEIVER = 120;

const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** A test, with `not` and parentheses peeled off into `negated`. */
function test(node: Node | null, negated: boolean): CallGuard {
  let n = node;
  let neg = negated;
  for (;;) {
    if (n?.type === 'not_operator') {
      n = n.childForFieldName('argument');
      neg = !neg;
    } else if (n?.type === 'parenthesized_expression' && n.namedChildCount === 1) n = n.namedChild(0);
    else break;
  }
  return { kind: 'if', condition: oneLine(n?.text ?? ''), negated: neg };
}

/** A stretch of a function's source whose code runs only under `guards` (outermost first). */
interface Region {
  start: number;
  end: number;
  guards: CallGuard[];
}

/** Node types whose parts run conditionally. */
const GUARD_NODES = ['if_statement', 'conditional_expression', 'boolean_operator', 'for_statement', 'while_statement', 'try_statement', 'except_clause', 'except_group_clause', 'case_clause', ...COMPREHENSIONS];

function region(node: Node | null | undefined, guards: CallGuard[], out: Region[]): void {
  if (node) out.push({ start: node.startIndex, end: node.endIndex, guards });
}

const loop = (condition: string): CallGuard => ({ kind: 'loop', condition: oneLine(condition), negated: false });

/** The conditional stretches one node opens (`if`: its consequence, each `elif` and the `else`). */
function regionsOf(node: Node, out: Region[]): void {
  switch (node.type) {
    case 'if_statement': {
      const first = test(node.childForFieldName('condition'), false);
      region(node.childForFieldName('consequence'), [first], out);
      // each later branch runs when every earlier test failed
      const failed: CallGuard[] = [{ ...first, negated: !first.negated }];
      for (const alt of node.namedChildren) {
        if (alt?.type === 'elif_clause') {
          const own = test(alt.childForFieldName('condition'), false);
          region(alt.childForFieldName('consequence'), [...failed, own], out);
          failed.push({ ...own, negated: !own.negated });
        } else if (alt?.type === 'else_clause') region(alt, [...failed], out);
      }
      return;
    }
    case 'conditional_expression': {
      const [consequence, condition, alternative] = node.namedChildren;
      region(consequence, [test(condition ?? null, false)], out);
      region(alternative, [test(condition ?? null, true)], out);
      return;
    }
    case 'boolean_operator':
      region(node.childForFieldName('right'), [test(node.childForFieldName('left'), node.childForFieldName('operator')?.type === 'or')], out);
      return;
    case 'for_statement':
    case 'while_statement': {
      const header = node.type === 'for_statement' ? `${node.childForFieldName('left')?.text ?? ''} in ${node.childForFieldName('right')?.text ?? ''}` : (node.childForFieldName('condition')?.text ?? '');
      region(node.childForFieldName('body'), [loop(header)], out);
      region(node.namedChildren.find((c) => c?.type === 'else_clause'), [loop('no break')], out);
      return;
    }
    case 'try_statement':
      region(node.namedChildren.find((c) => c?.type === 'else_clause'), [{ kind: 'except', condition: 'no exception', negated: false }], out);
      return;
    case 'except_clause':
    case 'except_group_clause':
      region(node, [{ kind: 'except', condition: oneLine(node.namedChildren.find((c) => c && c.type !== 'block' && c.type !== 'comment')?.text ?? ''), negated: false }], out);
      return;
    case 'case_clause':
      region(node, [{ kind: 'case', condition: oneLine(node.namedChildren.filter((c) => c?.type === 'case_pattern').map((c) => c!.text).join(', ')), negated: false }], out);
      return;
    default: {
      // comprehensions: the first `for` clause's iterable runs once; the element and later clauses per item
      const [body, ...clauses] = node.namedChildren;
      const guard = [loop(clauses[0]?.text ?? '')];
      region(body, guard, out);
      for (const clause of clauses.slice(1)) region(clause, guard, out);
    }
  }
}

/**
 * Gives each call (in source order) the guards of the regions containing it, outermost first.
 * Regions come from syntax, so any two are nested or disjoint: one stack suffices.
 */
function guardCalls(calls: Node[], regions: Region[]): CallGuard[][] {
  regions.sort((a, b) => a.start - b.start || b.end - a.end);
  const out: CallGuard[][] = [];
  const stack: Region[] = [];
  let next = 0;
  for (const call of calls) {
    const at = call.startIndex;
    while (next < regions.length && regions[next]!.start <= at) {
      const r = regions[next++]!;
      while (stack.length && stack[stack.length - 1]!.end <= r.start) stack.pop();
      stack.push(r);
    }
    while (stack.length && stack[stack.length - 1]!.end <= at) stack.pop();
    out.push(stack.filter((r) => r.end >= call.endIndex).flatMap((r) => r.guards));
  }
  return out;
}

/**
 * The body pass, for the functions whose name an assertion scopes (or every function, when
 * `allCalls`: a helper an assertion follows into, read on demand): calls with callee, receiver
 * and the conditions each runs under, and, for the scoped ones, the compared, matched and
 * returned literals. Calls inside a nested def or lambda belong to that scope, not to the
 * function around it. Reading every body of every file would cost about as much again as
 * parsing; the few helpers followed are read later (see `BodyReader`).
 */
export function attachBodies(functions: Map<number, FunctionScan>, bodies: ReadonlySet<string>, allCalls: boolean): void {
  for (const fn of functions.values()) {
    const literals = bodies.has(fn.def.qualname.split('.').pop() ?? '');
    if (!literals && !allCalls) continue;
    fn.def.bodyRead = true;
    const stack: { end: number; own: boolean }[] = [];
    const guardNodes: Node[] = [];
    const calls: Node[] = [];
    for (const node of fn.node.descendantsOfType(literals ? [...SCOPES, ...GUARD_NODES, ...BODY_NODES] : [...SCOPES, ...GUARD_NODES, 'call'])) {
      const start = node.startIndex;
      while (stack.length && start >= stack[stack.length - 1]!.end) stack.pop();
      if (SCOPES.includes(node.type)) {
        stack.push({ end: node.endIndex, own: start === fn.node.startIndex });
        continue;
      }
      if (!stack[stack.length - 1]?.own || start < fn.bodyStart) continue;
      if (node.type === 'call') calls.push(node);
      else if (GUARD_NODES.includes(node.type)) guardNodes.push(node);
      // comparisons and boolean operators can be both: a guard and a literal carrier
      if (literals && node.type !== 'call' && BODY_NODES.includes(node.type)) attachLiterals(fn, node);
    }
    if (calls.length === 0) continue;
    const regions: Region[] = [];
    for (const g of guardNodes) regionsOf(g, regions);
    const guards = guardCalls(calls, regions);
    calls.forEach((call, i) => attachCall(fn, call, guards[i]!));
  }
}

/**
 * CLI flags the file defines: `x.add_argument("--flag", "-f", ...)` anywhere, every leading
 * string argument that starts with a dash. Only files that mention `add_argument` are walked.
 */
export function flagsOf(root: Node, text: string): FlagSite[] {
  const flags: FlagSite[] = [];
  if (!text.includes('add_argument')) return flags;
  for (const call of root.descendantsOfType('call')) if (call) flagOf(call, flags);
  return flags;
}

function flagOf(call: Node, flags: FlagSite[]): void {
  const callee = call.childForFieldName('function');
  const name = callee?.type === 'attribute' ? callee.childForFieldName('attribute')?.text : callee?.text;
  if (name !== 'add_argument') return;
  for (const arg of call.childForFieldName('arguments')?.namedChildren ?? []) {
    const value = arg ? stringValue(arg) : undefined;
    if (value === undefined) break;
    if (value.startsWith('-')) flags.push({ flag: value, ...point(arg!) });
  }
}

function attachCall(fn: FunctionScan, node: Node, guards: CallGuard[]): void {
  const callee = node.childForFieldName('function');
  const name = callee?.type === 'identifier' ? callee.text : callee?.type === 'attribute' ? callee.childForFieldName('attribute')?.text : undefined;
  if (!name) return;
  const receiver = callee?.type === 'attribute' ? callee.childForFieldName('object')?.text : undefined;
  const site: CallSite = { name, ...(receiver !== undefined && receiver.length <= MAX_RECEIVER ? { receiver: oneLine(receiver) } : {}), guards, ...point(node) };
  // a call runs after its arguments: order by where it ends
  let i = fn.callEnds.length;
  while (i > 0 && fn.callEnds[i - 1]! > node.endIndex) i--;
  fn.callEnds.splice(i, 0, node.endIndex);
  fn.def.calls.splice(i, 0, site);
}

function attachLiterals(fn: FunctionScan, node: Node): void {
  for (const literal of literalsOf(node)) {
    const value = stringValue(literal);
    if (value !== undefined) fn.def.literals.push({ value, ...point(literal) } satisfies LiteralSite);
  }
}
