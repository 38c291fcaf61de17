/**
 * package-check: every wheel generated for the registry passes the packaging checks that
 * `orbitkv package-check` runs (required files, the plugin entry point, the exact engine pin,
 * RECORD hashes, no retired path, no bytecode), and the generated client the stand-ins use is
 * in it.
 */
import { readFileSync } from 'node:fs';
import { checkWheel, readZip } from '../../../generators/index.js';
import type { ScenarioRun } from '../harness/index.js';

export const run: ScenarioRun = async (ctx) => {
  const adapters = ctx.workspace.adapters;
  ctx.check(adapters.length > 0, 'the registry generates at least one adapter wheel');
  for (const a of adapters) {
    ctx.uses(a.engine);
    const bytes = readFileSync(a.wheel);
    const findings = checkWheel(ctx.workspace.registry, bytes, a.wheel).filter((d) => d.severity === 'error');
    ctx.check(findings.length === 0, `${a.distribution}: the wheel passes package-check`, findings.map((d) => `${d.code} ${d.message}`));
    const names = readZip(bytes).map((m) => m.name);
    ctx.check(names.includes(`${a.importName}/_client.py`), `${a.distribution}: the wheel carries the Manager client (${a.importName}/_client.py)`);
  }
};
