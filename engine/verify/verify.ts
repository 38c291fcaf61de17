import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type Diagnostic, diagnose, sortDiagnostics } from '../diagnostics/index.js';
import type { SourceAssertion } from '../model/index.js';
import type { Registry } from '../registry/index.js';
import { AssertionEvaluator } from './assertions.js';
import { checkoutVersion } from './checkout-version.js';
import { BodyReader } from './body-reader.js';
import { PINNED_GRAMMAR, loadPythonParser } from './grammar.js';
import { ModuleIndex } from './module-index.js';
import { type ScanTarget, scanFiles } from './pool.js';
import { ScanCache, lookupScans, scanCacheKey } from './scan-cache.js';
import type { ScanOptions } from './scan-file.js';
import type { AssertionCheck, OutcomeCounts, TargetCheck, VerifyReport } from './report.js';
import { SymbolResolver } from './resolve.js';
import { DEFAULT_MAX_FILE_BYTES } from './scan-file.js';
import { readSourceTree } from './source-tree.js';
import type { FileScan } from './table.js';
import { TargetChecker, literalNeedles } from './targets.js';

export interface VerifyOptions {
  registry: Registry;
  /** The engine contract's `name`. */
  engine: string;
  /** The checkout root. */
  source: string;
  /** Worker threads; default one per CPU (fewer for small trees); 0 scans in the calling thread. */
  threads?: number;
  /** Files above this many bytes are skipped with a diagnostic. */
  maxFileBytes?: number;
  /**
   * A folder for the symbol-table cache (tables by content hash, see `ScanCache`): a re-verify
   * parses only files whose bytes it has not seen. Absent: every file is parsed.
   */
  cacheDir?: string;
}

function scopeFiles(a: SourceAssertion): string[] {
  return a.form === 'all' ? a.of.flatMap(scopeFiles) : [a.file];
}

/** The function names whose bodies assertions read (`GPUModelRunner.execute_model` → `execute_model`). */
function scopedFunctions(a: SourceAssertion): string[] {
  if (a.form === 'all') return a.of.flatMap(scopedFunctions);
  return 'function' in a ? [a.function.split('.').pop() ?? a.function] : [];
}

function usesCalls(a: SourceAssertion): boolean {
  return a.form === 'all' ? a.of.some(usesCalls) : a.form === 'calls' || a.form === 'call-order' || a.form === 'call-branch';
}

function scanDiagnostics(scan: FileScan, maxFileBytes: number): Diagnostic[] {
  const site = { file: scan.file };
  switch (scan.status) {
    case 'binary':
      return [diagnose('binaryFile', site)];
    case 'too-large':
      return [diagnose('sourceFileTooLarge', site, scan.bytes, maxFileBytes)];
    case 'unreadable':
      return [diagnose('sourceUnreadable', site, scan.reason ?? 'unknown error')];
    case 'parsed': {
      const first = scan.syntaxErrors[0];
      return first ? [diagnose('pythonSyntax', { file: scan.file, range: { line: first.line, col: first.col, endLine: first.line, endCol: first.col } }, scan.syntaxErrors.length)] : [];
    }
  }
}

function tally(targets: TargetCheck[], assertions: AssertionCheck[]): OutcomeCounts {
  const counts: OutcomeCounts = {};
  for (const o of [...targets.map((t) => t.outcome), ...assertions.map((a) => a.outcome)]) counts[o] = (counts[o] ?? 0) + 1;
  return counts;
}

/**
 * Checks one engine's hook targets, consumed interface symbols and gap assertions against a
 * checkout, and what the checkout says its version is. Never throws for bad input: problems
 * are diagnostics and `verdict` says whether anything could be verified.
 *
 * @example
 *   const { registry } = loadRegistry('contracts');
 *   const report = await verifyEngine({ registry, engine: 'vllm', source: '/src/vllm' });
 *   report.verdict; // 'ok' when every kept hook target, symbol and assertion holds
 */
export async function verifyEngine(options: VerifyOptions): Promise<VerifyReport> {
  const diagnostics: Diagnostic[] = [];
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const base = { engine: options.engine, source: options.source, grammar: { name: PINNED_GRAMMAR.name, version: PINNED_GRAMMAR.version, abi: PINNED_GRAMMAR.abi }, targets: [], assertions: [], files: {}, scanned: 0, counts: {} };
  const unusable = (): VerifyReport => ({ ...base, diagnostics: sortDiagnostics(diagnostics), verdict: 'unusable' });
  const engine = options.registry.engine(options.engine);
  if (!engine) {
    diagnostics.push(diagnose('engineNotInRegistry', {}, options.engine, options.registry.ofKind('engine').map((e) => e.name).join(', ') || 'none'));
    return unusable();
  }
  const tree = readSourceTree(options.source, engine.package ?? engine.name, diagnostics);
  if (!tree) return unusable();

  const hooks = options.registry.ofKind('hook').filter((h) => h.engine === engine.name);
  const interfaces = options.registry.ofKind('interface').filter((i) => i.engine === engine.name);
  const gaps = options.registry.ofKind('gap').filter((g) => g.engine === engine.name);

  // Files the contracts name outside the package folder (a version file at the root) are read too.
  const targets: ScanTarget[] = [...tree.files];
  const known = new Set(targets.map((t) => t.file));
  for (const file of [...(engine.versionFile ? [engine.versionFile] : []), ...gaps.flatMap((g) => scopeFiles(g.assertion))]) {
    const absolute = join(tree.root, file);
    if (!known.has(file) && file.endsWith('.py') && existsSync(absolute) && statSync(absolute).isFile()) {
      targets.push({ absolute, file });
      known.add(file);
    }
  }
  const bodies = [...new Set(gaps.flatMap((g) => scopedFunctions(g.assertion)))].sort();
  const scanOptions: ScanOptions = { maxFileBytes, needles: literalNeedles(interfaces), bodies };
  const { scans, cache } = await scanWithCache(targets, scanOptions, options, diagnostics);
  for (const scan of scans) diagnostics.push(...scanDiagnostics(scan, maxFileBytes));

  const index = new ModuleIndex(tree, scans);
  const resolver = new SymbolResolver(index);
  const checker = new TargetChecker(resolver, index);
  const targetChecks = [...hooks.flatMap((h) => checker.hook(h)), ...interfaces.flatMap((i) => checker.interface(i))];
  // helpers' bodies are parsed on demand while call assertions follow them
  const parser = gaps.some((g) => usesCalls(g.assertion)) ? await loadPythonParser() : undefined;
  let assertionChecks: AssertionCheck[];
  try {
    const evaluator = new AssertionEvaluator(resolver, parser ? new BodyReader(parser, tree.root) : undefined);
    assertionChecks = gaps.map((g) => evaluator.gap(g));
  } finally {
    parser?.delete();
  }

  const version = checkoutVersion(engine, index);
  if (version.version === undefined) diagnostics.push(diagnose('versionUnknown', {}, [engine.versionFile, 'pyproject.toml', 'PKG-INFO'].filter(Boolean).join(', ')));
  else if (version.versionMatches === false) diagnostics.push(diagnose('versionMismatch', version.versionFrom && !version.versionFrom.startsWith('.git ') ? { file: version.versionFrom } : {}, version.version, engine.version));
  if (version.commitMatches === false) diagnostics.push(diagnose('commitMismatch', {}, version.commit ?? '?', engine.commit ?? '?'));

  const files: Record<string, string> = {};
  for (const scan of scans) if (scan.sha256) files[scan.file] = scan.sha256;
  const failing = targetChecks.some((t) => !t.informational && t.outcome !== 'present') || assertionChecks.some((a) => a.outcome !== 'holds');
  return {
    ...base,
    source: tree.root,
    packageDir: tree.packageDir,
    version,
    targets: targetChecks,
    assertions: assertionChecks,
    files,
    scanned: scans.length,
    diagnostics: sortDiagnostics(diagnostics),
    counts: tally(targetChecks, assertionChecks),
    verdict: failing ? 'failed' : 'ok',
    ...(cache ? { scanCache: cache } : {}),
  };
}

/** Parses the files, taking the tables the cache holds for unchanged bytes; a cache that cannot be written is a warning. */
async function scanWithCache(targets: ScanTarget[], scanOptions: ScanOptions, options: VerifyOptions, diagnostics: Diagnostic[]): Promise<{ scans: FileScan[]; cache?: { reused: number; parsed: number } }> {
  if (options.cacheDir === undefined) return { scans: await scanFiles(targets, scanOptions, options.threads) };
  const cache = new ScanCache(join(options.cacheDir, 'verify'), scanCacheKey(scanOptions));
  const { hits, misses } = lookupScans(cache, targets, scanOptions.maxFileBytes);
  const parsed = await scanFiles(misses.map((i) => targets[i]!), scanOptions, options.threads);
  const scans: FileScan[] = targets.map((_, i) => hits.get(i)!);
  misses.forEach((i, k) => {
    scans[i] = parsed[k]!;
    cache.put(parsed[k]!);
  });
  try {
    cache.flush();
  } catch (error) {
    diagnostics.push(diagnose('scanCacheUnwritable', { file: options.cacheDir }, (error as NodeJS.ErrnoException).code ?? (error as Error).message));
  }
  return { scans, cache: { reused: hits.size, parsed: misses.length } };
}
