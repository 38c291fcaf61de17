import { nearest } from '../schema.js';
import { kindList, referencesOf } from '../references.js';
import type { RegistryRule } from './rule.js';

export const rule: RegistryRule = {
  id: 'unresolved-reference',
  description: 'Every contract id a contract names exists in the registry.',
  reports: ['unresolvedReference'],
  check({ registry, report }) {
    let ids: string[] | undefined;
    for (const entry of registry.entries) {
      for (const ref of referencesOf(entry.contract)) {
        if (registry.has(ref.id) || registry.isRefused(ref.id)) continue;
        // Suggestions only among contracts the field accepts, computed lazily: misses are rare.
        ids ??= registry.entries.map((e) => e.contract.id);
        const candidates = ids.filter((id) => ref.kinds.includes(registry.get(id)!.kind));
        report('unresolvedReference', { entry, path: ref.path }, ref.id, kindList(ref.kinds), nearest(ref.id, candidates));
      }
    }
  },
};
