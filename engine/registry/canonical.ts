import { isDeepStrictEqual } from 'node:util';
import { type Document, Scalar, type YAMLMap, isMap, isScalar, isSeq, parseDocument, type Pair, type ToStringOptions } from 'yaml';
import { stringTag, stringifyString } from 'yaml/util';
import { CONTRACT_KINDS, type ContractKind } from '../model/index.js';
import { isModeline, modelineFor } from './modeline.js';
import { type SchemaNode, kindSchema } from './schema.js';

/** The fields every contract starts with, in reading order; `notes` (free text) always ends it. */
const HEAD = ['kind', 'id', 'title', 'source'];
const TAIL = ['notes'];

/** Fixed output options: the canonical style is not configurable, so every checkout formats alike. */
const OUTPUT: ToStringOptions = { indent: 2, indentSeq: true, lineWidth: 0, minContentWidth: 0, flowCollectionPadding: false };

/**
 * The canonical text of one contract file: keys in the model's order (`kind`, `id`, `title`,
 * `source`, then the kind's fields as the generated schema declares them, nested objects too,
 * unknown keys last in their original order, `notes` at the end), 2-space indentation, comments
 * and block scalars kept as written, the schema modeline first.
 *
 * The caller has already refused text with parse errors. Throws if the result would not read
 * back as the same data: that is a bug here, never something to write.
 *
 * @example canonicalContractText('hooks/hook.x.yaml', text) // === text when already canonical
 */
export function canonicalContractText(file: string, text: string): string {
  const blockSources = new Map<Scalar, string>();
  const doc = parseDocument(text, {
    keepSourceTokens: false,
    customTags: (tags) => tags.map((t) => (typeof t === 'object' && 'tag' in t && t.tag === stringTag.tag ? verbatimBlockTag(blockSources) : t)),
  });
  const before = doc.toJS({ maxAliasCount: 0 }) as unknown;
  const contents = doc.contents;
  if (isMap(contents)) {
    collectBlockSources(contents, text, blockSources);
    const kind = contents.get('kind');
    const schema = typeof kind === 'string' && (CONTRACT_KINDS as readonly string[]).includes(kind) ? kindSchema(kind as ContractKind) : undefined;
    const header = takeHeaderComment(contents);
    orderTop(contents, schema);
    restoreHeaderComment(doc, contents, header, typeof kind === 'string' ? (kind as ContractKind) : undefined, file);
  }
  const out = doc.toString(OUTPUT);
  const after = parseDocument(out).toJS({ maxAliasCount: 0 }) as unknown;
  if (!isDeepStrictEqual(before, after)) throw new Error(`fmt: canonical text of ${file} would not read back as the same data`);
  return out;
}

function orderTop(map: YAMLMap, schema: SchemaNode | undefined): void {
  const own = schema ? Object.keys(resolve(schema, schema)?.properties ?? {}).filter((k) => !HEAD.includes(k) && !TAIL.includes(k)) : [];
  sortPairs(map, [...HEAD, ...own, ...TAIL]);
  if (schema) for (const pair of map.items) orderValue(pair.value, propertySchema(schema, schema, String(keyOf(pair))), schema);
}

/** Orders a nested value by its schema node (maps by `properties`, sequences item by item). */
function orderValue(value: unknown, node: SchemaNode | undefined, root: SchemaNode): void {
  if (!node) return;
  if (isSeq(value)) {
    const items = resolve(node, root)?.items;
    for (const item of value.items) orderValue(item, items, root);
    return;
  }
  if (!isMap(value)) return;
  const branch = pickBranch(node, root, value);
  if (!branch) return;
  sortPairs(value, Object.keys(branch.properties ?? {}));
  for (const pair of value.items) orderValue(pair.value, propertySchema(branch, root, String(keyOf(pair))), root);
}

function propertySchema(node: SchemaNode, root: SchemaNode, key: string): SchemaNode | undefined {
  return resolve(node, root)?.properties?.[key];
}

/** Follows `$ref`s into the root's definitions. */
function resolve(node: SchemaNode | undefined, root: SchemaNode): SchemaNode | undefined {
  let n = node;
  for (let hops = 0; n?.$ref && hops < 16; hops++) n = root.definitions?.[n.$ref.split('/').pop()!];
  return n;
}

/** For a union, the branch the mapping was meant to be: a matching `const` discriminator, else the most shared keys. */
function pickBranch(node: SchemaNode, root: SchemaNode, map: YAMLMap): SchemaNode | undefined {
  const n = resolve(node, root);
  const variants = n?.anyOf ?? n?.oneOf;
  if (!variants) return n;
  const keys = map.items.map((p) => String(keyOf(p)));
  let best: SchemaNode | undefined;
  let bestScore = -Infinity;
  for (const v of variants) {
    const branch = pickBranch(v, root, map);
    if (!branch?.properties) continue;
    const props = branch.properties;
    const clash = Object.entries(props).some(([k, p]) => p.const !== undefined && map.get(k) !== undefined && map.get(k) !== p.const);
    if (clash) continue;
    const score = keys.filter((k) => k in props).length - keys.filter((k) => !(k in props)).length;
    if (score > bestScore) {
      bestScore = score;
      best = branch;
    }
  }
  return best;
}

/** Stable sort of a mapping's pairs: listed keys in list order, then the rest as they were. */
function sortPairs(map: YAMLMap, order: readonly string[]): void {
  const rank = (pair: Pair) => {
    const i = order.indexOf(String(keyOf(pair)));
    return i < 0 ? order.length : i;
  };
  const first = map.items[0];
  map.items.sort((a, b) => rank(a) - rank(b));
  // A comment above the first key of a nested mapping stays at the top of that mapping.
  const now = map.items[0];
  if (first && now && first !== now && isScalar(first.key) && isScalar(now.key) && first.key.commentBefore) {
    now.key.commentBefore = joinComments(first.key.commentBefore, now.key.commentBefore);
    first.key.commentBefore = undefined;
  }
}

function keyOf(pair: Pair): unknown {
  return isScalar(pair.key) ? pair.key.value : pair.key;
}

/** The comment block above the first key: the file header (modeline and file notes). */
function takeHeaderComment(map: YAMLMap): string | undefined {
  const first = map.items[0];
  if (!first || !isScalar(first.key)) return undefined;
  const comment = first.key.commentBefore ?? undefined;
  first.key.commentBefore = undefined;
  return comment;
}

function restoreHeaderComment(doc: Document, map: YAMLMap, header: string | undefined, kind: ContractKind | undefined, file: string): void {
  let comment = header;
  const hasModeline = [doc.commentBefore, header].some((c) => c?.split('\n').some((line) => isModeline(`#${line}`)));
  if (!hasModeline && kind && (CONTRACT_KINDS as readonly string[]).includes(kind)) {
    const modeline = modelineFor(kind, file).slice(1);
    if (doc.commentBefore) doc.commentBefore = joinComments(modeline, doc.commentBefore) ?? null;
    else comment = joinComments(modeline, comment);
  }
  const first = map.items[0];
  if (comment && first && isScalar(first.key)) first.key.commentBefore = comment;
}

function joinComments(a: string | null | undefined, b: string | null | undefined): string | undefined {
  if (!a) return b ?? undefined;
  if (!b) return a;
  return `${a}\n${b}`;
}

/**
 * Block scalars (`>-`, `|`) keep the author's line breaks: a folded paragraph re-wrapped by a
 * formatter is churn in every review. Their source is re-indented, never re-folded.
 */
function collectBlockSources(node: unknown, text: string, out: Map<Scalar, string>): void {
  if (isMap(node)) {
    for (const pair of node.items) collectBlockSources(pair.value, text, out);
    return;
  }
  if (isSeq(node)) {
    for (const item of node.items) collectBlockSources(item, text, out);
    return;
  }
  if (isScalar(node) && (node.type === Scalar.BLOCK_FOLDED || node.type === Scalar.BLOCK_LITERAL) && node.range && !node.comment) {
    out.set(node, text.slice(node.range[0], node.range[1]));
  }
}

function verbatimBlockTag(sources: Map<Scalar, string>): typeof stringTag {
  return {
    ...stringTag,
    stringify(item, ctx, onComment, onChompKeep) {
      const source = sources.get(item as Scalar);
      const reindented = source === undefined ? undefined : reindentBlock(source, ctx.indent);
      return reindented ?? stringifyString(item, ctx, onComment, onChompKeep);
    },
  };
}

/** `>-\n    text\n    more\n` at a new indent; undefined when the block cannot be moved verbatim. */
function reindentBlock(source: string, indent: string): string | undefined {
  const lines = source.replace(/\n+$/, '').split('\n');
  const header = lines.shift()!;
  // Keep-chomping (`+`) and explicit indentation indicators depend on the exact trailing lines and indent.
  if (!/^[>|]-?$/.test(header.trim()) || lines.length === 0) return undefined;
  const content = lines.filter((l) => l.trim() !== '');
  const old = Math.min(...content.map((l) => l.length - l.trimStart().length));
  if (!Number.isFinite(old) || old === 0 || indent.length === 0) return undefined;
  return [header.trim(), ...lines.map((l) => (l.trim() === '' ? '' : `${indent}${l.slice(old)}`))].join('\n');
}
