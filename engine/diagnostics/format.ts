import { readFileSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import type { Diagnostic, SourceRange } from './diagnostic.js';
import { CATALOGUE } from './catalogue.js';
import { printable } from './printable.js';

/** The output formats every command that reports diagnostics offers. */
export const DIAGNOSTIC_FORMATS = ['text', 'json', 'github'] as const;
export type DiagnosticFormat = (typeof DIAGNOSTIC_FORMATS)[number];

export interface FormatOptions {
  format: DiagnosticFormat;
  /** The folder diagnostic `file`s are relative to (the registry root). */
  root: string;
  /** Where paths are shown relative to (the user's working directory); default: `root`. */
  cwd?: string;
  /** Source text of a file (relative to `root`), for code frames; default reads it from disk. */
  readSource?: (file: string) => string | undefined;
  /** ANSI colours in text output. */
  color?: boolean;
  /** How many contracts were checked, for the "no problems in N contracts" line. */
  contracts?: number;
}

/** The `--format json` document. Stable: fields are only ever added. */
export interface DiagnosticReport {
  version: 1;
  diagnostics: Array<{
    code: string;
    severity: Diagnostic['severity'];
    rule?: string;
    message: string;
    file?: string;
    line?: number;
    col?: number;
    endLine?: number;
    endCol?: number;
    contract?: string;
    hint?: string;
  }>;
  counts: { errors: number; warnings: number; files: number; contracts?: number };
}

/**
 * Renders diagnostics for people (`text`: `file:line:col - error CODE: message`, a code frame,
 * a hint, a final count), machines (`json`, see `DiagnosticReport`) or GitHub Actions
 * (`github`: `::error file=F,line=L,col=C,title=CODE::message` workflow commands).
 *
 * @example formatDiagnostics(diagnostics, { format: 'text', root: registry.root, contracts: 86 })
 */
export function formatDiagnostics(diagnostics: readonly Diagnostic[], options: FormatOptions): string {
  switch (options.format) {
    case 'json':
      return `${JSON.stringify(diagnosticReport(diagnostics, options), null, 2)}\n`;
    case 'github':
      return formatGithub(diagnostics, options);
    case 'text':
      return formatText(diagnostics, options);
  }
}

/** The counts of a run: errors, warnings, and the distinct files they are in. */
export function countDiagnostics(diagnostics: readonly Diagnostic[]): { errors: number; warnings: number; files: number } {
  let errors = 0;
  let warnings = 0;
  const files = new Set<string>();
  for (const d of diagnostics) {
    if (d.severity === 'error') errors++;
    else warnings++;
    if (d.file !== undefined) files.add(d.file);
  }
  return { errors, warnings, files: files.size };
}

/** `2 errors, 1 warning in 3 files` / `no problems in 86 contracts`. */
export function summaryLine(diagnostics: readonly Diagnostic[], contracts?: number): string {
  const { errors, warnings, files } = countDiagnostics(diagnostics);
  if (errors === 0 && warnings === 0) return contracts === undefined ? 'no problems' : `no problems in ${plural(contracts, 'contract')}`;
  const parts: string[] = [];
  if (errors > 0 || warnings === 0) parts.push(plural(errors, 'error'));
  if (warnings > 0) parts.push(plural(warnings, 'warning'));
  return files > 0 ? `${parts.join(', ')} in ${plural(files, 'file')}` : parts.join(', ');
}

export function diagnosticReport(diagnostics: readonly Diagnostic[], options: Pick<FormatOptions, 'root' | 'cwd' | 'contracts'>): DiagnosticReport {
  const rules = ruleByCode();
  const counts = countDiagnostics(diagnostics);
  return {
    version: 1,
    diagnostics: diagnostics.map((d) => {
      const rule = rules.get(d.code);
      return {
        code: d.code,
        severity: d.severity,
        ...(rule ? { rule } : {}),
        message: d.message,
        ...(d.file !== undefined ? { file: shownPath(d.file, options) } : {}),
        ...(d.range ? { line: d.range.line, col: d.range.col, endLine: d.range.endLine, endCol: d.range.endCol } : {}),
        ...(d.contract !== undefined ? { contract: d.contract } : {}),
        ...(d.hint !== undefined ? { hint: d.hint } : {}),
      };
    }),
    counts: { ...counts, ...(options.contracts !== undefined ? { contracts: options.contracts } : {}) },
  };
}

let rulesCache: Map<string, string> | undefined;
function ruleByCode(): Map<string, string> {
  if (!rulesCache) rulesCache = new Map(Object.values(CATALOGUE).map((d) => [d.code, d.rule] as [string, string]));
  return rulesCache;
}

function formatGithub(diagnostics: readonly Diagnostic[], options: FormatOptions): string {
  const lines = diagnostics.map((d) => {
    const props: string[] = [];
    if (d.file !== undefined) props.push(`file=${escapeProperty(shownPath(d.file, options))}`);
    if (d.range) {
      props.push(`line=${d.range.line}`, `col=${d.range.col}`);
      if (d.range.endLine !== d.range.line || d.range.endCol !== d.range.col) props.push(`endLine=${d.range.endLine}`, `endColumn=${d.range.endCol}`);
    }
    props.push(`title=${escapeProperty(d.code)}`);
    const body = d.hint ? `${d.message}\nhint: ${d.hint}` : d.message;
    return `::${d.severity === 'error' ? 'error' : 'warning'} ${props.join(',')}::${escapeData(body)}`;
  });
  lines.push(summaryLine(diagnostics, options.contracts));
  return `${lines.join('\n')}\n`;
}

// GitHub workflow-command escaping (actions/toolkit `command.ts`).
function escapeData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}
function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

interface Paint {
  red(s: string): string;
  yellow(s: string): string;
  cyan(s: string): string;
  dim(s: string): string;
  bold(s: string): string;
}

function paint(color: boolean): Paint {
  const wrap = (open: number, close: number) => (s: string) => (color ? `\u001b[${open}m${s}\u001b[${close}m` : s);
  return { red: wrap(31, 39), yellow: wrap(33, 39), cyan: wrap(36, 39), dim: wrap(2, 22), bold: wrap(1, 22) };
}

function formatText(diagnostics: readonly Diagnostic[], options: FormatOptions): string {
  const p = paint(options.color ?? false);
  const sources = new Map<string, string[] | undefined>();
  const read = options.readSource ?? ((file: string) => readFromDisk(options.root, file));
  const linesOf = (file: string): string[] | undefined => {
    if (!sources.has(file)) {
      const text = read(file);
      sources.set(file, text === undefined ? undefined : text.split(/\r?\n/).map(printable));
    }
    return sources.get(file);
  };
  const blocks: string[] = [];
  for (const d of diagnostics) {
    const severity = d.severity === 'error' ? p.red('error') : p.yellow('warning');
    const where = d.file !== undefined ? `${p.cyan(shownPath(d.file, options))}${d.range ? `:${p.yellow(String(d.range.line))}:${p.yellow(String(d.range.col))}` : ''} - ` : '';
    let block = `${where}${severity} ${p.dim(d.code)}: ${printable(d.message)}\n`;
    if (d.file !== undefined && d.range) {
      const lines = linesOf(d.file);
      if (lines) block += `\n${frame(lines, d.range, p)}\n`;
    }
    if (d.hint) block += `${p.bold('hint')}: ${printable(d.hint)}\n`;
    blocks.push(block);
  }
  const summary = summaryLine(diagnostics, options.contracts);
  return blocks.length ? `${blocks.join('\n')}\n${summary}\n` : `${summary}\n`;
}

/** Longest source line shown in a frame; longer ones are cut with an ellipsis. */
const MAX_FRAME_WIDTH = 160;
/** Lines of the range itself shown before the frame elides the rest. */
const MAX_FRAME_LINES = 4;

/**
 * A code frame like TypeScript's and Babel's: one line of context either side, a gutter with
 * line numbers, `>` on the lines of the range and a `^` underline beneath them.
 */
export function codeFrame(lines: readonly string[], range: SourceRange, color = false): string {
  return frame(lines, range, paint(color));
}

function frame(lines: readonly string[], range: SourceRange, p: Paint): string {
  let { line: start, col: startCol, endLine: end, endCol } = range;
  // A block node's range ends at column 1 of the line after it: that line is not part of it.
  if (end > start && endCol === 1) {
    end--;
    endCol = (lines[end - 1]?.length ?? 0) + 1;
  }
  start = clamp(start, 1, Math.max(1, lines.length));
  end = clamp(end, start, Math.max(1, lines.length));
  const shownEnd = Math.min(end, start + MAX_FRAME_LINES - 1);
  const first = Math.max(1, start - 1);
  const last = Math.min(lines.length, shownEnd + 1);
  const width = String(last).length;
  const out: string[] = [];
  for (let n = first; n <= last; n++) {
    const text = visible(lines[n - 1] ?? '');
    const inRange = n >= start && n <= shownEnd;
    const gutter = `${inRange ? '>' : ' '} ${String(n).padStart(width)} | `;
    out.push(`${inRange ? p.bold(gutter) : p.dim(gutter)}${text}`.trimEnd());
    if (!inRange) continue;
    const raw = lines[n - 1] ?? '';
    const lineStart = n === start ? startCol : firstNonBlank(raw);
    const lineEnd = n === end ? endCol : raw.length + 1;
    const from = visibleCol(raw, lineStart);
    const to = Math.max(from + 1, visibleCol(raw, lineEnd));
    const marker = `${' '.repeat(from - 1)}${'^'.repeat(Math.min(to - from, Math.max(1, MAX_FRAME_WIDTH + 1 - from)))}`;
    out.push(`${p.dim(`  ${' '.repeat(width)} | `)}${p.red(marker)}`);
    if (n === shownEnd && shownEnd < end) out.push(p.dim(`  ${' '.repeat(width)} | ... ${end - shownEnd} more line${end - shownEnd === 1 ? '' : 's'}`));
  }
  return out.join('\n');
}

function clamp(n: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, n));
}

function firstNonBlank(s: string): number {
  const m = /\S/.exec(s);
  return m ? m.index + 1 : 1;
}

/** Tabs become two spaces and control characters a `?`, so the underline lines up. */
function visible(s: string): string {
  const shown = s.replace(/\t/g, '  ').replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '?');
  return shown.length > MAX_FRAME_WIDTH ? `${shown.slice(0, MAX_FRAME_WIDTH)}…` : shown;
}

function visibleCol(raw: string, col: number): number {
  const before = raw.slice(0, Math.max(0, col - 1));
  return before.length + (before.match(/\t/g)?.length ?? 0) + 1;
}

function readFromDisk(root: string, file: string): string | undefined {
  try {
    return readFileSync(isAbsolute(file) ? file : join(root, file), 'utf8');
  } catch {
    // No frame for a file that cannot be read (deleted since, unreadable): the location still says where.
    return undefined;
  }
}

function shownPath(file: string, options: Pick<FormatOptions, 'root' | 'cwd'>): string {
  if (options.cwd === undefined) return file;
  const absolute = isAbsolute(file) ? file : join(options.root, file);
  const shown = relative(options.cwd, absolute) || file;
  return shown.split(sep).join('/');
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
