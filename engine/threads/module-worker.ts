/**
 * Starts a worker thread on a module that sits next to the caller's, with the caller's extension:
 * `.js` when the project runs built (dist/), `.ts` under tsx (specs, `npx tsx`). A worker thread
 * does not inherit tsx's loader, so under tsx the worker first registers it (through tsx's ESM
 * API: its CommonJS one misresolves when imported) and then imports the module.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

/** A worker running `name` (no extension) from the folder of `callerUrl` (the caller's import.meta.url). */
export function startModuleWorker(callerUrl: string, name: string, workerData: unknown): Worker {
  const ext = extname(fileURLToPath(callerUrl));
  const entry = new URL(`./${name}${ext}`, callerUrl);
  if (ext !== '.ts') return new Worker(entry, { workerData });
  const code = `import(${JSON.stringify(tsxEsmApi())}).then((m) => { m.register(); return import(${JSON.stringify(entry.href)}); });`;
  return new Worker(code, { eval: true, workerData });
}

/** tsx's ESM register API, found through its package exports. */
export function tsxEsmApi(): string {
  const manifest = createRequire(import.meta.url).resolve('tsx/package.json');
  const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { exports: Record<string, { import: { default: string } }> };
  return pathToFileURL(join(dirname(manifest), pkg.exports['./esm/api']!.import.default)).href;
}
