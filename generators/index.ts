import { join } from 'node:path';
import { type Diagnostic, errorCount } from '../engine/diagnostics/index.js';
import type { Registry } from '../engine/registry/index.js';
import { type AdapterPlan, type GeneratedFile, type SkippedEngine, emitPackage, planAdapters } from './adapters/index.js';
import { driftOf, manifestFile, writeGenerated } from './manifest/index.js';
import { emitTypescriptRejections, rejectionTable } from './rejections/index.js';
import { buildWheel, wheelName } from './wheel/index.js';

export { ADAPTER_TEMPLATES, planAdapters, signatureFingerprint, wheelRules, type AdapterPackage, type AdapterPlan, type GeneratedFile, type SkippedEngine } from './adapters/index.js';
export { REJECTIONS_PY, emitTypescriptRejections, rejectionTable, type RejectionData, type RejectionTable } from './rejections/index.js';
export { buildWheel, checkWheel, readZip, recordHash, wheelName, writeZip, type ZipMember } from './wheel/index.js';
export { MANIFEST_NAME } from './manifest/index.js';
export { asciiJson, asciiJsonLines, pyJsonExpression, pyStringLiteral } from './python/index.js';
/** The default output folder, relative to the working directory. */
export const DEFAULT_OUT_DIR = join('build', 'adapters');
/** The adapter packages' version when none is given. */
export const DEFAULT_ADAPTER_VERSION = '0.1.0';

export interface RenderOptions {
  /** Also emit installable wheels under `wheels/`. */
  wheel?: boolean;
  /** The adapter packages' version (default `0.1.0`). */
  version?: string;
}

export interface Rendered {
  plan: AdapterPlan;
  /** Every file, sorted by path, the manifest last. */
  files: GeneratedFile[];
  diagnostics: Diagnostic[];
}

/**
 * Everything `generate` writes, computed in memory: per runtime engine a package source tree
 * (and a wheel), the TypeScript rejection module, and the manifest. Pure.
 */
export function renderAdapters(registry: Registry, options: RenderOptions = {}): Rendered {
  const plan = planAdapters(registry, options.version ?? DEFAULT_ADAPTER_VERSION);
  const files: GeneratedFile[] = [];
  for (const pkg of plan.packages) {
    files.push(...emitPackage(pkg));
    if (options.wheel) files.push({ path: `wheels/${wheelName(pkg)}`, bytes: buildWheel(pkg) });
  }
  const engines = plan.packages.map((p) => p.engine.name);
  files.push({ path: 'typescript/rejections.ts', bytes: Buffer.from(emitTypescriptRejections(rejectionTable(registry, engines)), 'utf8') });
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  files.push(manifestFile(files));
  return { plan, files, diagnostics: plan.diagnostics };
}

export interface GenerateOptions extends RenderOptions {
  outDir: string;
  /** Write nothing; report drift (missing, out of date, edited by hand, stale). */
  check?: boolean;
  /** Write nothing; report what would be written and removed. */
  dryRun?: boolean;
}

export interface GenerateResult {
  /** Runtime engines that got no adapter package, with the code of the finding that says why. */
  skipped: SkippedEngine[];
  /** Every generated path (relative to `outDir`). */
  files: string[];
  written: string[];
  removed: string[];
  /** `--check` findings, and hand-edited stale files a write kept. */
  drift: Diagnostic[];
  /** Planning findings; with errors nothing is written. */
  diagnostics: Diagnostic[];
}

/**
 * Generates the adapter packages, rejection modules (and wheels) from the registry into
 * `outDir`, removing stale files recorded by the previous manifest; or, with `check`, reports
 * drift without writing.
 *
 * @example generateAdapters(registry, { outDir: 'build/adapters', check: true }).drift.length === 0
 */
export function generateAdapters(registry: Registry, options: GenerateOptions): GenerateResult {
  const rendered = renderAdapters(registry, options);
  const files = rendered.files.map((f) => f.path);
  const skipped = rendered.plan.skipped;
  if (errorCount(rendered.diagnostics) > 0) return { skipped, files, written: [], removed: [], drift: [], diagnostics: rendered.diagnostics };
  if (options.check) return { skipped, files, written: [], removed: [], drift: driftOf(options.outDir, rendered.files), diagnostics: rendered.diagnostics };
  const result = writeGenerated(options.outDir, rendered.files, options.dryRun ?? false);
  return { skipped, files, written: result.written, removed: result.removed, drift: result.kept, diagnostics: [...rendered.diagnostics, ...result.refused] };
}
