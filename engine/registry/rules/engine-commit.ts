import type { RegistryRule } from './rule.js';

export const rule: RegistryRule = {
  id: 'engine-commit',
  description: 'An engine records its pinned commit, or says why it is unknown (commitUnknown), not both.',
  reports: ['engineCommitAndUnknown'],
  check({ registry, report }) {
    for (const entry of registry.entriesOfKind('engine')) {
      const { commit, commitUnknown } = entry.contract;
      if (commit !== undefined && commitUnknown !== undefined) report('engineCommitAndUnknown', { entry, path: ['commitUnknown'], key: true }, commit);
    }
  },
};
