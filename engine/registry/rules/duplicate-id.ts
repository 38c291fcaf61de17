import type { RegistryRule } from './rule.js';

export const rule: RegistryRule = {
  id: 'duplicate-id',
  description: 'Contract ids are unique across the registry.',
  reports: ['duplicateId'],
  check({ registry, report }) {
    const first = new Map<string, string>();
    for (const entry of registry.entries) {
      const seen = first.get(entry.contract.id);
      if (seen === undefined) first.set(entry.contract.id, entry.source.file);
      else report('duplicateId', { entry, path: ['id'] }, entry.contract.id, seen);
    }
  },
};
