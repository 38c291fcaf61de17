import type { RegistryRule } from './rule.js';

export const rule: RegistryRule = {
  id: 'upstream-merge-state',
  description: 'Only a merged upstream change can be contained in a release.',
  reports: ['releasedNotMerged'],
  check({ registry, report }) {
    for (const entry of registry.entriesOfKind('upstream')) {
      const { state, releasedIn } = entry.contract;
      if (state !== 'merged' && releasedIn.length > 0) report('releasedNotMerged', { entry, path: ['state'] }, state);
    }
  },
};
