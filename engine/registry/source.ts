import { LineCounter, isNode, isPair, isMap, isScalar, parseAllDocuments, type Document, type Node } from 'yaml';
import type { SourceRange } from '../diagnostics/index.js';

/** A parsed contract file: the YAML document with its line index, for positions. */
export interface SourceFile {
  /** Path relative to the registry root, with `/` separators. */
  file: string;
  /** Absolute path. */
  path: string;
  text: string;
  doc: Document.Parsed;
  lines: LineCounter;
}

/**
 * A contract file's text with its YAML document built on demand. The loader parses every file
 * once and then lets the document go (`release`): ten thousand retained documents cost more in
 * garbage collection than parsing them did. Positions are needed only for diagnostics, so a
 * released source parses again, once, the first time a phase asks where a field is.
 */
export class ContractSource implements SourceFile {
  private parsed: { doc: Document.Parsed; lines: LineCounter } | undefined;
  private content: string | (() => string);

  constructor(
    readonly file: string,
    readonly path: string,
    /** The text, or a function that produces it the first time it is read (bytes sent by a load worker). */
    text: string | (() => string),
    parsed?: { doc: Document.Parsed; lines: LineCounter },
  ) {
    this.content = text;
    this.parsed = parsed;
  }

  get text(): string {
    if (typeof this.content !== 'string') this.content = this.content();
    return this.content;
  }

  get doc(): Document.Parsed {
    return this.ensure().doc;
  }

  get lines(): LineCounter {
    return this.ensure().lines;
  }

  /** Drops the document; the next `doc` or `lines` parses the text again. */
  release(): void {
    this.parsed = undefined;
  }

  /** Whether the document is in memory (positions cost nothing now). */
  get isParsed(): boolean {
    return this.parsed !== undefined;
  }

  private ensure(): { doc: Document.Parsed; lines: LineCounter } {
    if (!this.parsed) {
      const lines = new LineCounter();
      // The text parsed cleanly when it was loaded, so the first document is the contract.
      const doc = parseAllDocuments(this.text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false, strict: true });
      const first = Array.isArray(doc) ? doc.find((d) => d.contents !== null) : undefined;
      if (!first) throw new Error(`${this.file}: text no longer parses as the contract it was loaded as`);
      this.parsed = { doc: first, lines };
    }
    return this.parsed;
  }
}

/** Converts a character offset range to 1-based line/column. */
export function rangeOf(lines: LineCounter, start: number, end: number): SourceRange {
  const a = lines.linePos(start);
  const b = lines.linePos(Math.max(start, end));
  return { line: a.line, col: a.col, endLine: b.line, endCol: b.col };
}

/**
 * The range of the value at `path` (keys and indices) in the document; when `key` is true,
 * the range of the mapping key instead. Falls back to the nearest existing ancestor, so a
 * diagnostic always points somewhere useful.
 */
export function rangeAtPath(source: SourceFile, path: ReadonlyArray<string | number>, key = false): SourceRange {
  // A released source answers a top-level one-line scalar from its text, without parsing again:
  // the common case of a diagnostic on a whole registry (a date, a state, a version).
  if (source instanceof ContractSource && !source.isParsed && path.length === 1 && typeof path[0] === 'string') {
    const fast = topLevelScalarRange(source.text, path[0], key);
    if (fast) return fast;
  }
  let node: unknown = source.doc.contents;
  let best: Node | null = isNode(node) ? node : null;
  for (let i = 0; i < path.length; i++) {
    const segment = path[i]!;
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(segment));
      if (!pair) break;
      const last = i === path.length - 1;
      if (last && key && isNode(pair.key)) {
        best = pair.key;
        break;
      }
      node = pair.value;
      if (isNode(node)) best = node;
      else if (isNode(pair.key)) best = pair.key;
    } else if (node && typeof node === 'object' && 'items' in node && Array.isArray((node as { items: unknown[] }).items)) {
      const item = (node as { items: unknown[] }).items[Number(segment)];
      if (item === undefined) break;
      node = isPair(item) ? item.value : item;
      if (isNode(node)) best = node;
    } else break;
  }
  const r = best?.range;
  if (!r) return { line: 1, col: 1, endLine: 1, endCol: 1 };
  return rangeOf(source.lines, r[0], r[1]);
}

/** Characters that start a value `topLevelScalarRange` leaves to the parser (blocks, flows, quotes, tags, anchors). */
const NOT_PLAIN = /^[|>[{'"&*!%@`?-]/;

/**
 * The range of a top-level key (or its value) when the text settles it without parsing: the key
 * starts exactly one line at column 1, and its value is a one-line plain scalar. Undefined
 * otherwise; the caller then parses. Equal to the parsed range wherever it answers (specs check
 * this over the embedded registry).
 */
export function topLevelScalarRange(text: string, name: string, key: boolean): SourceRange | undefined {
  const prefix = `${name}:`;
  let found = -1;
  let lineNo = 0;
  let at = 0;
  let foundLine = 0;
  while (at <= text.length) {
    lineNo++;
    if (text.startsWith(prefix, at)) {
      const after = text.charCodeAt(at + prefix.length);
      // `name:` followed by a space, a tab, a newline or the end of the text (not `name:x` or `names:`).
      if (Number.isNaN(after) || after === 32 || after === 9 || after === 10 || after === 13) {
        if (found >= 0) return undefined;
        found = at;
        foundLine = lineNo;
      }
    }
    const next = text.indexOf('\n', at);
    if (next < 0) break;
    at = next + 1;
  }
  if (found < 0) return undefined;
  if (key) return { line: foundLine, col: 1, endLine: foundLine, endCol: prefix.length };
  const end = text.indexOf('\n', found);
  const line = text.slice(found, end < 0 ? text.length : end).replace(/\r$/, '');
  const rest = line.slice(prefix.length);
  const start = prefix.length + (rest.length - rest.trimStart().length);
  let value = line.slice(start);
  const comment = value.search(/\s#/);
  if (comment >= 0) value = value.slice(0, comment);
  value = value.trimEnd();
  if (value === '' || NOT_PLAIN.test(value)) return undefined;
  // A plain scalar continues on more-indented lines that follow: leave those to the parser.
  const following = end < 0 ? '' : text.slice(end + 1, text.indexOf('\n', end + 1) < 0 ? text.length : text.indexOf('\n', end + 1));
  if (/^[ \t]+[^ \t#\r]/.test(following)) return undefined;
  return { line: foundLine, col: start + 1, endLine: foundLine, endCol: start + value.length + 1 };
}
