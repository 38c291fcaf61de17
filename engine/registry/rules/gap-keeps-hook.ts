import type { RegistryRule } from './rule.js';

export const rule: RegistryRule = {
  id: 'gap-keeps-hook',
  description: 'A gap keeps only hooks that are kept.',
  reports: ['gapKeepsRemovedHook'],
  check({ registry, report }) {
    for (const entry of registry.entriesOfKind('gap')) {
      entry.contract.consequence.keepsHooks.forEach((id, i) => {
        const hook = registry.get(id);
        if (hook?.kind === 'hook' && hook.disposition.state === 'removed') report('gapKeepsRemovedHook', { entry, path: ['consequence', 'keepsHooks', i] }, id);
      });
    }
  },
};
