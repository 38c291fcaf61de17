import type { RegistryRule } from './rule.js';

export const rule: RegistryRule = {
  id: 'rejection-justified',
  description: 'A rejection is justified by a gap, hook or interface of its own engine, or by a policy.',
  reports: ['rejectionUnjustified'],
  check({ registry, report }) {
    for (const entry of registry.entriesOfKind('rejection')) {
      const { engine, justifiedBy } = entry.contract;
      const justified = justifiedBy.some((id) => {
        const c = registry.get(id);
        if (!c) return false;
        if (c.kind === 'policy') return true;
        return (c.kind === 'gap' || c.kind === 'hook' || c.kind === 'interface') && c.engine === engine;
      });
      // An unresolved id is already reported; say nothing more until the ids resolve.
      const allResolve = justifiedBy.every((id) => registry.has(id));
      if (!justified && allResolve) report('rejectionUnjustified', { entry, path: ['justifiedBy'] }, engine);
    }
  },
};
