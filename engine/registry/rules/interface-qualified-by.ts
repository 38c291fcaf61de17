import type { RegistryRule } from './rule.js';

export const rule: RegistryRule = {
  id: 'interface-qualified-by',
  description: 'A qualified interface names the gates whose passes qualify it.',
  reports: ['interfaceQualifiedWithoutGates'],
  check({ registry, report }) {
    for (const entry of registry.entriesOfKind('interface')) {
      if (entry.contract.status === 'qualified' && entry.contract.qualifiedBy.length === 0) report('interfaceQualifiedWithoutGates', { entry, path: ['status'] });
    }
  },
};
