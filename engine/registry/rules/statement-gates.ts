import type { RegistryRule } from './rule.js';

export const rule: RegistryRule = {
  id: 'statement-gates',
  description: 'A policy statement enforced by a gate names that gate.',
  reports: ['statementWithoutGates'],
  check({ registry, report }) {
    for (const entry of registry.entriesOfKind('policy')) {
      const p = entry.contract.policy;
      if (p.rule === 'statement' && p.enforcedBy === 'gate' && (p.gates ?? []).length === 0) report('statementWithoutGates', { entry, path: ['policy', 'enforcedBy'] });
    }
  },
};
