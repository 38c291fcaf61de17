import type { RegistryRule } from './rule.js';

export const rule: RegistryRule = {
  id: 'removed-hook-replacement',
  description: 'A hook is removed only once its replacement is released (or not needed): merged is not released.',
  reports: ['removedHookUnreleasedReplacement'],
  check({ registry, report }) {
    for (const entry of registry.entriesOfKind('hook')) {
      const { disposition, replacement } = entry.contract;
      if (disposition.state !== 'removed') continue;
      if (replacement.status === 'none' || replacement.status === 'proposed' || replacement.status === 'merged') {
        report('removedHookUnreleasedReplacement', { entry, path: ['replacement', 'status'] }, replacement.status);
      }
    }
  },
};
