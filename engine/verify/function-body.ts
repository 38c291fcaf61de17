import type { Node } from 'web-tree-sitter';
import type { CallSite, FunctionDefinition, LiteralSite, SourcePoint } from './table.js';

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

/**
 * The body pass, for the functions whose name an assertion scopes: calls, comparisons,
 * returns and case patterns attached to the innermost enclosing scope, so calls inside a
 * nested def or lambda do not count for the function around it. Reading every body of every
 * file would cost as much as parsing; no check needs them.
 */
export function attachBodies(functions: Map<number, FunctionScan>, bodies: ReadonlySet<string>): void {
  for (const fn of functions.values()) {
    if (!bodies.has(fn.def.qualname.split('.').pop() ?? '')) continue;
    const stack: { end: number; own: boolean }[] = [];
    for (const node of fn.node.descendantsOfType([...SCOPES, ...BODY_NODES])) {
      const start = node.startIndex;
      while (stack.length && start >= stack[stack.length - 1]!.end) stack.pop();
      if (SCOPES.includes(node.type)) {
        stack.push({ end: node.endIndex, own: start === fn.node.startIndex });
        continue;
      }
      if (!stack[stack.length - 1]?.own || start < fn.bodyStart) continue;
      attach(fn, node);
    }
  }
}

function attach(fn: FunctionScan, node: Node): void {
  if (node.type === 'call') {
    const callee = node.childForFieldName('function');
    const name = callee?.type === 'identifier' ? callee.text : callee?.type === 'attribute' ? callee.childForFieldName('attribute')?.text : undefined;
    if (!name) return;
    const site: CallSite = { name, ...point(node) };
    // a call runs after its arguments: order by where it ends
    let i = fn.callEnds.length;
    while (i > 0 && fn.callEnds[i - 1]! > node.endIndex) i--;
    fn.callEnds.splice(i, 0, node.endIndex);
    fn.def.calls.splice(i, 0, site);
    return;
  }
  for (const literal of literalsOf(node)) {
    const value = stringValue(literal);
    if (value !== undefined) fn.def.literals.push({ value, ...point(literal) } satisfies LiteralSite);
  }
}

