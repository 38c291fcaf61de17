/**
 * lazy-import: in a fresh stand-in process per adapter package, with importable stand-ins for
 * every module the lazy-import policy forbids (so an import of one would succeed and show),
 * importing the package and its plugin module and calling the plugin entry point with the
 * product not selected leaves every forbidden module out of `sys.modules` and creates no socket.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { productOf } from '../../registry/index.js';
import type { ScenarioRun } from '../harness/index.js';

export const run: ScenarioRun = async (ctx) => {
  const policy = ctx.workspace.registry.ofKind('policy').find((p) => p.policy.rule === 'lazy-import');
  const rule = policy?.policy.rule === 'lazy-import' ? policy.policy : undefined;
  const forbidden = rule?.forbiddenModules ?? [];
  ctx.check(rule !== undefined, 'the registry has a lazy-import policy to check against');
  const stubs = ctx.workspace.folder('lazy-stubs');
  for (const name of forbidden) {
    const dir = join(stubs, ...name.split('.'));
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, '__init__.py'), '');
  }
  const envPrefix = productOf(ctx.workspace.registry).envPrefix;
  for (const a of ctx.workspace.adapters) {
    const env: NodeJS.ProcessEnv = {};
    for (const key of Object.keys(process.env)) if (key.startsWith(`${envPrefix}_`)) env[key] = '';
    const e = await ctx.engine(null, { connect: false, engine: a.engine, path: [stubs], env });
    const [module, fn] = a.entryPoint.split(':') as [string, string];
    const imported = await e.attempt('import', {});
    ctx.check(!('error' in imported), `${a.importName}: the package imports`, imported);
    const plugin = await e.attempt('import', { module: module.slice(a.importName.length + 1) });
    ctx.check(!('error' in plugin), `${a.importName}: its plugin module imports`, plugin);
    const called = await e.attempt('call', { module: module.slice(a.importName.length + 1), function: fn });
    ctx.check(!('error' in called), `${a.importName}: the entry point ${a.entryPoint} returns when not selected`, called);
    const loaded = await e.call<string[]>('modules', { prefixes: forbidden });
    ctx.check(loaded.length === 0, `${a.importName}: no forbidden module (${forbidden.join(', ')}) is imported`, loaded);
    if (rule?.noConnection) {
      const sockets = await e.call<string[]>('sockets');
      ctx.check(sockets.length === 0, `${a.importName}: no socket is created or connected`, sockets);
    }
  }
};
