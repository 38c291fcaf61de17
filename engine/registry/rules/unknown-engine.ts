import { engineReferenceOf } from '../references.js';
import type { RegistryRule } from './rule.js';

export const rule: RegistryRule = {
  id: 'unknown-engine',
  description: 'Every engine a contract names is pinned by an engine contract.',
  reports: ['unknownEngine'],
  check({ registry, report }) {
    const known = registry.ofKind('engine').map((e) => e.name).join(', ');
    for (const entry of registry.entries) {
      const ref = engineReferenceOf(entry.contract);
      // An engine contract that failed the schema has its own errors: no cascade onto its users.
      if (ref && !registry.engine(ref.name) && !registry.isRefusedEngine(ref.name)) report('unknownEngine', { entry, path: ref.path }, ref.name, known);
    }
  },
};
