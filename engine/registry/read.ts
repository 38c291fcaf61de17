import { closeSync, fstatSync, openSync, readSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { LineCounter, parseAllDocuments, visit } from 'yaml';
import { type Diagnostic, diagnose } from '../diagnostics/index.js';
import { ContractSource, rangeOf } from './source.js';

/** Contract files larger than this are refused before parsing. */
export const MAX_CONTRACT_BYTES = 1024 * 1024;

/** Folders of a registry that hold no contracts. */
const NON_CONTRACT_DIRS = new Set(['schema', 'evidence', 'node_modules']);

/**
 * Lists the contract files under `root` (`*.yaml`, `*.yml`), sorted, following symbolic links
 * once and reporting loops instead of recursing forever.
 */
export function listContractFiles(root: string, diagnostics: Diagnostic[]): string[] {
  const found: string[] = [];
  const seen = new Set<string>();
  const walk = (dir: string, top: boolean): void => {
    let real: string;
    try {
      real = realpathSync(dir);
    } catch (error) {
      diagnostics.push(diagnose('unreadableFile', { file: rel(root, dir) }, (error as Error).message));
      return;
    }
    if (seen.has(real)) {
      diagnostics.push(diagnose('symlinkLoop', { file: rel(root, dir) }, rel(root, real) || '.'));
      return;
    }
    seen.add(real);
    let entries: import('node:fs').Dirent[];
    try {
      // Dirents carry the entry type: only symbolic links need a stat of their own.
      entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    } catch (error) {
      diagnostics.push(diagnose('unreadableFile', { file: rel(root, dir) }, (error as Error).message));
      return;
    }
    for (const dirent of entries) {
      const name = dirent.name;
      if (name.startsWith('.')) continue;
      if (top && NON_CONTRACT_DIRS.has(name)) continue;
      const path = join(dir, name);
      let isDir = false;
      let isFile = false;
      try {
        const target = dirent.isSymbolicLink() ? statSync(path) : dirent;
        isDir = target.isDirectory();
        isFile = target.isFile();
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ELOOP') diagnostics.push(diagnose('symlinkLoop', { file: rel(root, path) }, name));
        else diagnostics.push(diagnose('unreadableFile', { file: rel(root, path) }, (error as Error).message));
        continue;
      }
      if (isDir) walk(path, false);
      else if (name.endsWith('.yaml') || name.endsWith('.yml')) {
        // A FIFO or device named *.yaml would block the read or never end: report, never open.
        if (isFile) found.push(path);
        else diagnostics.push(diagnose('unreadableFile', { file: rel(root, path) }, 'not a regular file'));
      }
    }
  };
  walk(root, true);
  return found;
}

/** Reads and parses one contract file; returns undefined (with diagnostics) when it cannot be used. */
export function readContractFile(root: string, path: string, diagnostics: Diagnostic[]): ContractSource | undefined {
  const file = rel(root, path);
  let bytes: Buffer;
  try {
    const read = readBounded(path, MAX_CONTRACT_BYTES);
    if (typeof read === 'number') {
      diagnostics.push(diagnose('fileTooLarge', { file }, read, MAX_CONTRACT_BYTES));
      return undefined;
    }
    bytes = read;
  } catch (error) {
    diagnostics.push(diagnose('unreadableFile', { file }, (error as Error).message));
    return undefined;
  }
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    diagnostics.push(diagnose('notUtf8', { file }, firstInvalidUtf8(bytes)));
    return undefined;
  }
  return parseContractText(file, path, text, diagnostics);
}

/** Decodes and checks UTF-8 in one native pass; a BOM is kept (and then rejected by the YAML parser as content). */
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The file's bytes, or its size when it is over `limit` (then nothing is read). One open, one
 * fstat, one read: the size check and the read see the same file.
 */
function readBounded(path: string, limit: number): Buffer | number {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    if (size > limit) return size;
    const buffer = Buffer.allocUnsafe(size);
    let offset = 0;
    while (offset < size) {
      const n = readSync(fd, buffer, offset, size - offset, offset);
      if (n === 0) break;
      offset += n;
    }
    return offset === size ? buffer : buffer.subarray(0, offset);
  } finally {
    closeSync(fd);
  }
}

/** Parses contract text (exported for `fmt` and specs). */
export function parseContractText(file: string, path: string, text: string, diagnostics: Diagnostic[]): ContractSource | undefined {
  const lines = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false, strict: true });
  const list = Array.isArray(docs) ? docs : [];
  const real = list.filter((d) => d.contents !== null || d.errors.length > 0);
  if (real.length === 0) {
    diagnostics.push(diagnose('emptyFile', { file, range: { line: 1, col: 1, endLine: 1, endCol: 1 } }));
    return undefined;
  }
  if (real.length > 1) {
    const second = real[1]!;
    diagnostics.push(diagnose('multipleDocuments', { file, range: rangeOf(lines, second.range[0], second.range[0]) }, real.length));
    return undefined;
  }
  const doc = real[0]!;
  let ok = true;
  for (const error of doc.errors) {
    ok = false;
    const range = rangeOf(lines, error.pos[0], error.pos[1]);
    if (error.code === 'DUPLICATE_KEY') {
      diagnostics.push(diagnose('duplicateKey', { file, range }, keyAt(text, error.pos[0])));
    } else {
      diagnostics.push(diagnose('yamlSyntax', { file, range }, firstLine(error.message)));
    }
  }
  if (!ok) return undefined;
  // Anchors and aliases need '&' or '*' in the text: most contracts have neither, so skip the walk.
  if (!text.includes('&') && !text.includes('*')) return new ContractSource(file, path, text, { doc, lines });
  let aliases = 0;
  visit(doc, {
    Alias(_key, node) {
      aliases++;
      if (aliases <= 3) diagnostics.push(diagnose('aliasUsed', { file, range: node.range ? rangeOf(lines, node.range[0], node.range[1]) : undefined }));
    },
    Node(_key, node) {
      if (node.anchor && aliases === 0 && node.range) {
        diagnostics.push(diagnose('aliasUsed', { file, range: rangeOf(lines, node.range[0], node.range[1]) }));
        aliases++;
      }
    },
  });
  if (aliases > 0) return undefined;
  return new ContractSource(file, path, text, { doc, lines });
}

function keyAt(text: string, offset: number): string {
  const m = /^[\s-]*["']?([^"':\n]+)/.exec(text.slice(offset, offset + 200));
  return m ? m[1]!.trim() : '?';
}

function firstLine(s: string): string {
  return s.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
}

function rel(root: string, path: string): string {
  return relative(root, path).split(sep).join('/');
}

/** Offset of the first byte that breaks UTF-8, or -1. */
export function firstInvalidUtf8(b: Uint8Array): number {
  let i = 0;
  while (i < b.length) {
    const c = b[i]!;
    if (c < 0x80) { i++; continue; }
    let n: number;
    let min: number;
    if (c >= 0xc2 && c <= 0xdf) { n = 1; min = 0x80; }
    else if (c >= 0xe0 && c <= 0xef) { n = 2; min = 0x800; }
    else if (c >= 0xf0 && c <= 0xf4) { n = 3; min = 0x10000; }
    else return i;
    if (i + n >= b.length) return i;
    let cp = c & (0x3f >> n);
    for (let k = 1; k <= n; k++) {
      const cc = b[i + k];
      if (cc === undefined || (cc & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (cc & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += n + 1;
  }
  return -1;
}
