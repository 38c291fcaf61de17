import type { RegistryRule } from './rule.js';

/** Kinds that only make sense against an engine the adapters run inside. */
const RUNTIME_KINDS = new Set(['hook', 'interface', 'rejection']);

export const rule: RegistryRule = {
  id: 'engine-pinned',
  description: "Hooks, interfaces and rejections target a runtime engine pin, not a reference engine.",
  reports: ['engineNotRuntime'],
  check({ registry, report }) {
    for (const entry of registry.entries) {
      const c = entry.contract;
      if (!RUNTIME_KINDS.has(c.kind) || !('engine' in c)) continue;
      const engine = registry.engine(c.engine);
      if (engine && engine.role !== 'runtime') report('engineNotRuntime', { entry, path: ['engine'] }, c.kind, c.engine);
    }
  },
};
