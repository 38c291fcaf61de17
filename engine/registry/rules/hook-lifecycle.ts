import { MANAGER_LIFECYCLES } from '../../model/index.js';
import type { RegistryRule } from './rule.js';

export const rule: RegistryRule = {
  id: 'hook-lifecycle',
  description: "A hook guards Manager lifecycles or lifecycles the product policy lists as its own.",
  reports: ['unknownLifecycle'],
  check({ registry, report }) {
    const own = new Set<string>(MANAGER_LIFECYCLES);
    for (const p of registry.ofKind('policy')) if (p.policy.rule === 'product') for (const name of p.policy.lifecycles ?? []) own.add(name);
    for (const entry of registry.entriesOfKind('hook')) {
      entry.contract.protects.lifecycles.forEach((name, index) => {
        if (!own.has(name)) report('unknownLifecycle', { entry, path: ['protects', 'lifecycles', index] }, name, MANAGER_LIFECYCLES.join(', '));
      });
    }
  },
};
