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

  constructor(
    readonly file: string,
    readonly path: string,
    readonly text: string,
    parsed?: { doc: Document.Parsed; lines: LineCounter },
  ) {
    this.parsed = parsed;
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
