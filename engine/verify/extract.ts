import type { Node, Tree } from 'web-tree-sitter';
import { type FunctionScan, attachBodies, flagsOf, point, stringValue } from './function-body.js';
import type { AssignmentDefinition, ClassDefinition, Definition, FlagSite, FunctionDefinition, NeedleHit, ParsedParameter, SourcePoint } from './table.js';

/** At most this many syntax errors are listed per file; the count beyond is not useful to a reader. */
export const MAX_SYNTAX_ERRORS = 20;

/** Statements whose bodies run only sometimes: definitions inside them are conditional. */
const CONDITIONAL_BLOCKS = new Set(['if_statement', 'elif_clause', 'else_clause', 'try_statement', 'except_clause', 'except_group_clause', 'finally_clause', 'with_statement', 'for_statement', 'while_statement']);


function parameters(node: Node | null): ParsedParameter[] {
  const out: ParsedParameter[] = [];
  if (!node) return out;
  let star = false;
  for (const child of node.namedChildren) {
    if (!child) continue;
    const positional = star ? 'keyword-only' : 'positional-or-keyword';
    switch (child.type) {
      case 'identifier':
        out.push({ name: child.text, kind: positional });
        break;
      case 'default_parameter':
      case 'typed_default_parameter': {
        const annotation = child.childForFieldName('type')?.text;
        out.push({ name: child.childForFieldName('name')?.text ?? '', kind: positional, default: child.childForFieldName('value')?.text ?? '', ...(annotation ? { annotation } : {}) });
        break;
      }
      case 'typed_parameter': {
        const inner = child.namedChild(0);
        const annotation = child.childForFieldName('type')?.text;
        const extra = annotation ? { annotation } : {};
        if (inner?.type === 'list_splat_pattern') {
          out.push({ name: inner.namedChild(0)?.text ?? '', kind: 'var-positional', ...extra });
          star = true;
        } else if (inner?.type === 'dictionary_splat_pattern') out.push({ name: inner.namedChild(0)?.text ?? '', kind: 'var-keyword', ...extra });
        else out.push({ name: inner?.text ?? '', kind: positional, ...extra });
        break;
      }
      case 'list_splat_pattern':
        out.push({ name: child.namedChild(0)?.text ?? '', kind: 'var-positional' });
        star = true;
        break;
      case 'dictionary_splat_pattern':
        out.push({ name: child.namedChild(0)?.text ?? '', kind: 'var-keyword' });
        break;
      case 'keyword_separator':
        star = true;
        break;
      case 'positional_separator':
        for (const p of out) if (p.kind === 'positional-or-keyword') p.kind = 'positional-only';
        break;
      default:
        // comments and error nodes inside the list carry no parameter
        break;
    }
  }
  return out;
}

function decorators(node: Node | null): string[] {
  if (node?.type !== 'decorated_definition') return [];
  return node.namedChildren.filter((c): c is Node => c?.type === 'decorator').map((d) => d.namedChild(0)?.text ?? d.text.slice(1));
}

function baseText(node: Node): string | undefined {
  if (node.type === 'keyword_argument' || node.type === 'comment') return undefined;
  if (node.type === 'subscript' || node.type === 'generic_type') return node.childForFieldName('value')?.text ?? node.namedChild(0)?.text;
  return node.text;
}

function fieldDefault(value: Node | null): string | undefined {
  if (value?.type !== 'call') return undefined;
  const callee = value.childForFieldName('function')?.text ?? '';
  if (!/(^|\.)(field|Field)$/.test(callee)) return undefined;
  for (const arg of value.childForFieldName('arguments')?.namedChildren ?? []) {
    if (arg?.type === 'keyword_argument' && arg.childForFieldName('name')?.text === 'default') return arg.childForFieldName('value')?.text;
  }
  return undefined;
}

/** The structural pass: module and class bodies (through conditional blocks), never function bodies. */
class DefinitionWalker {
  readonly definitions: Definition[] = [];
  readonly functions = new Map<number, FunctionScan>();
  /** How many `except` handlers enclose the statement being walked. */
  private handlers = 0;

  private push(def: Definition): void {
    if (this.handlers > 0) def.inExcept = true;
    this.definitions.push(def);
  }

  block(statements: (Node | null)[], prefix: string, conditional: boolean, moduleLevel: boolean): void {
    for (const statement of statements) if (statement) this.statement(statement, prefix, conditional, moduleLevel);
  }

  private statement(node: Node, prefix: string, conditional: boolean, moduleLevel: boolean): void {
    const type = node.type;
    if (type === 'ERROR') {
      // error recovery wraps the statements around a mistake: the intact ones still count
      this.block(node.namedChildren, prefix, conditional, moduleLevel);
    } else if (type === 'decorated_definition') {
      const definition = node.childForFieldName('definition');
      if (definition) this.definition(definition, node, prefix, conditional);
    } else if (type === 'class_definition' || type === 'function_definition') {
      this.definition(node, node, prefix, conditional);
    } else if (type === 'expression_statement') {
      for (const child of node.namedChildren) if (child?.type === 'assignment') this.assignment(child, prefix, conditional);
    } else if (moduleLevel && (type === 'import_from_statement' || type === 'import_statement')) {
      this.importStatement(node, conditional);
    } else if (CONDITIONAL_BLOCKS.has(type)) {
      const handler = type === 'except_clause' || type === 'except_group_clause';
      if (handler) this.handlers++;
      for (const child of node.namedChildren) {
        if (!child) continue;
        if (child.type === 'block') this.block(child.namedChildren, prefix, true, moduleLevel);
        else if (CONDITIONAL_BLOCKS.has(child.type)) this.statement(child, prefix, true, moduleLevel);
      }
      if (handler) this.handlers--;
    }
  }

  private definition(node: Node, outer: Node, prefix: string, conditional: boolean): void {
    const name = node.childForFieldName('name')?.text;
    if (!name) return;
    const qualname = prefix + name;
    const base = { qualname, conditional, start: outer.startIndex, end: outer.endIndex, ...point(node) };
    const body = node.childForFieldName('body');
    if (node.type === 'class_definition') {
      const bases = (node.childForFieldName('superclasses')?.namedChildren ?? []).flatMap((b) => (b ? (baseText(b) ?? []) : []));
      const def: ClassDefinition = { kind: 'class', ...base, bases, decorators: decorators(outer) };
      this.push(def);
      if (body) this.block(body.namedChildren, `${qualname}.`, false, false);
      return;
    }
    const returns = node.childForFieldName('return_type')?.text;
    const def: FunctionDefinition = {
      kind: 'function',
      ...base,
      async: node.child(0)?.type === 'async',
      decorators: decorators(outer),
      parameters: parameters(node.childForFieldName('parameters')),
      ...(returns !== undefined ? { returns } : {}),
      bodyRead: false,
      calls: [],
      literals: [],
      selfAttributes: name === '__init__' && body ? selfAttributes(body) : [],
    };
    this.push(def);
    this.functions.set(node.startIndex, { def, node, bodyStart: body?.startIndex ?? node.endIndex, callEnds: [] });
  }

  private assignment(node: Node, prefix: string, conditional: boolean): void {
    const left = node.childForFieldName('left');
    let right = node.childForFieldName('right');
    // `a = b = value`: every target gets the innermost value
    while (right?.type === 'assignment') {
      this.assignment(right, prefix, conditional);
      right = right.childForFieldName('right');
    }
    const annotation = node.childForFieldName('type')?.text;
    // `Class.attr = value` at module level patches a class after its body: a run-time binding
    const patched = prefix === '' && left?.type === 'attribute' && /^[A-Za-z_][\w.]*$/.test(left.text);
    const names = left?.type === 'identifier' || patched ? [left] : left?.type === 'pattern_list' || left?.type === 'tuple_pattern' ? left.namedChildren.filter((n): n is Node => n?.type === 'identifier') : [];
    const fd = fieldDefault(right);
    for (const target of names) {
      const def: AssignmentDefinition = {
        kind: 'assignment',
        qualname: prefix + target.text,
        conditional,
        start: node.startIndex,
        end: node.endIndex,
        ...point(target),
        ...(right ? { value: right.text } : {}),
        ...(annotation !== undefined ? { annotation } : {}),
        ...(fd !== undefined ? { fieldDefault: fd } : {}),
      };
      this.push(def);
    }
  }

  private importStatement(node: Node, conditional: boolean): void {
    const base = { conditional, start: node.startIndex, end: node.endIndex, ...point(node) };
    if (node.type === 'import_from_statement') {
      const moduleName = node.childForFieldName('module_name');
      if (!moduleName) return;
      const module = moduleName.text;
      for (const child of node.namedChildren) {
        if (!child || child.equals(moduleName)) continue;
        if (child.type === 'wildcard_import') this.push({ kind: 'import', qualname: '*', module, star: true, ...base });
        else if (child.type === 'dotted_name') this.push({ kind: 'import', qualname: child.text, module, name: child.text, ...base });
        else if (child.type === 'aliased_import') {
          const name = child.childForFieldName('name')?.text ?? '';
          this.push({ kind: 'import', qualname: child.childForFieldName('alias')?.text ?? name, module, name, ...base });
        }
      }
      return;
    }
    for (const child of node.namedChildren) {
      if (!child) continue;
      if (child.type === 'aliased_import') {
        const module = child.childForFieldName('name')?.text ?? '';
        this.push({ kind: 'import', qualname: child.childForFieldName('alias')?.text ?? module, module, ...base });
      } else if (child.type === 'dotted_name') {
        // `import a.b` binds `a`
        const top = child.text.split('.')[0] ?? child.text;
        this.push({ kind: 'import', qualname: top, module: top, ...base });
      }
    }
  }
}

function selfAttributes(body: Node): string[] {
  const names = new Set<string>();
  for (const assignment of body.descendantsOfType('assignment')) {
    const left = assignment?.childForFieldName('left');
    if (left?.type === 'attribute' && left.childForFieldName('object')?.text === 'self') {
      const attr = left.childForFieldName('attribute')?.text;
      if (attr) names.add(attr);
    }
  }
  return [...names];
}

function syntaxErrors(root: Node): { points: SourcePoint[]; offsets: number[] } {
  const points: SourcePoint[] = [];
  const offsets: number[] = [];
  if (!root.hasError) return { points, offsets };
  const cursor = root.walk();
  // descend only into subtrees that contain an error
  for (;;) {
    const node = cursor.currentNode;
    // an ERROR that wraps intact statements is reported where its inner mistake is
    const wraps = node.isError && node.children.some((c) => c.hasError);
    if ((node.isError && !wraps) || node.isMissing) {
      points.push(point(node));
      offsets.push(node.startIndex);
      if (points.length >= MAX_SYNTAX_ERRORS) break;
    } else if (node.hasError && cursor.gotoFirstChild()) continue;
    let moved = cursor.gotoNextSibling();
    while (!moved) {
      if (!cursor.gotoParent()) {
        cursor.delete();
        return { points, offsets };
      }
      moved = cursor.gotoNextSibling();
    }
  }
  cursor.delete();
  return { points, offsets };
}

function needleHits(root: Node, text: string, needles: readonly string[]): NeedleHit[] {
  const hits: NeedleHit[] = [];
  for (const needle of needles) {
    for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) {
      let node: Node | null = root.descendantForIndex(at, at + needle.length);
      for (let depth = 0; node && depth < 3 && node.type !== 'string'; depth++) node = node.parent;
      if (node && stringValue(node) === needle) {
        hits.push({ needle, ...point(node) });
        break;
      }
    }
  }
  return hits;
}

/**
 * Everything verification needs from one parsed file: every definition at module and class
 * level; calls and literals for the functions named in `bodies`; literal `needles` found.
 */
export function extractTable(tree: Tree, text: string, needles: readonly string[], bodies: ReadonlySet<string>, allCalls = false): { definitions: Definition[]; syntaxErrors: SourcePoint[]; errorOffsets: number[]; needles: NeedleHit[]; flags: FlagSite[] } {
  const root = tree.rootNode;
  const walker = new DefinitionWalker();
  walker.block(root.namedChildren, '', false, true);
  attachBodies(walker.functions, bodies, allCalls);
  const errors = syntaxErrors(root);
  return { definitions: walker.definitions, syntaxErrors: errors.points, errorOffsets: errors.offsets, needles: needleHits(root, text, needles), flags: flagsOf(root, text) };
}
