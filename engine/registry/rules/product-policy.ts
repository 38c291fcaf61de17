import { MANAGER_LIFECYCLES } from '../../model/index.js';
import { SCENARIOS } from '../../gates/index.js';
import type { RegistryRule } from './rule.js';

export const rule: RegistryRule = {
  id: 'product-policy',
  description: 'A registry names its product at most once, and the product\'s own lifecycle and scenario names do not reuse the Manager\'s.',
  reports: ['productPolicyDuplicated', 'productNameShadowed'],
  check({ registry, report }) {
    let first: string | undefined;
    for (const entry of registry.entriesOfKind('policy')) {
      const policy = entry.contract.policy;
      if (policy.rule !== 'product') continue;
      if (first !== undefined) report('productPolicyDuplicated', { entry, path: ['policy', 'rule'] }, first);
      first ??= entry.contract.id;
      (policy.lifecycles ?? []).forEach((name, index) => {
        if ((MANAGER_LIFECYCLES as readonly string[]).includes(name)) report('productNameShadowed', { entry, path: ['policy', 'lifecycles', index] }, name, 'lifecycle');
      });
      (policy.scenarios ?? []).forEach((s, index) => {
        if (SCENARIOS.some((c) => c.name === s.name)) report('productNameShadowed', { entry, path: ['policy', 'scenarios', index, 'name'] }, s.name, 'scenario');
      });
    }
  },
};
