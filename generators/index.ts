import { join } from 'node:path';
import { type Diagnostic, errorCount } from '../engine/diagnostics/index.js';
import type { Registry } from '../engine/registry/index.js';
import { type GeneratedFile, emitPackage } from './adapters/emit.js';
import { type AdapterPlan, planAdapters } from './adapters/plan.js';
import { driftOf, manifestFile, writeGenerated } from './manifest/manifest.js';
import { rejectionTable } from './rejections/plan.js';
import { emitTypescriptRejections } from './rejections/typescript.js';
import { buildWheel, wheelName } from './wheel/wheel.js';

export { planAdapters, wheelRules, type AdapterPackage, type AdapterPlan } from './adapters/plan.js';
export { type GeneratedFile } from './adapters/emit.js';
export { ADAPTER_TEMPLATES } from './adapters/templates.js';
export { signatureFingerprint } from './adapters/signature.js';
export { rejectionTable, type RejectionTable, type RejectionData } from './rejections/plan.js';
export { emitTypescriptRejections } from './rejections/typescript.js';
export { buildWheel, wheelName } from './wheel/wheel.js';
export { checkWheel } from './wheel/check.js';
export { MANIFEST_NAME } from './manifest/manifest.js';
export { asciiJson, asciiJsonLines, pyJsonExpression, pyStringLiteral } from './python/literal.js';

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
  if (errorCount(rendered.diagnostics) > 0) return { files, written: [], removed: [], drift: [], diagnostics: rendered.diagnostics };
  if (options.check) return { files, written: [], removed: [], drift: driftOf(options.outDir, rendered.files), diagnostics: rendered.diagnostics };
  const result = writeGenerated(options.outDir, rendered.files, options.dryRun ?? false);
  return { files, written: result.written, removed: result.removed, drift: result.kept, diagnostics: rendered.diagnostics };
}
