import { LineCounter, isNode, isPair, isMap, isScalar, type Document, type Node } from 'yaml';
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
