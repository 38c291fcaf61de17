import type { RegistryRule } from './rule.js';

export const rule: RegistryRule = {
  id: 'duplicate-engine',
  description: 'One engine contract per engine name: the pin is recorded once.',
  reports: ['duplicateEngineName'],
  check({ registry, report }) {
    const first = new Map<string, string>();
    for (const entry of registry.entriesOfKind('engine')) {
      const seen = first.get(entry.contract.name);
      if (seen === undefined) first.set(entry.contract.name, entry.contract.id);
      else report('duplicateEngineName', { entry, path: ['name'] }, entry.contract.name, seen);
    }
  },
};
