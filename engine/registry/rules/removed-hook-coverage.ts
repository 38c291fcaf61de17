import type { RegistryRule } from './rule.js';

export const rule: RegistryRule = {
  id: 'removed-hook-coverage',
  description: 'A removed hook says what replaced it and names the contracts whose passes cover the removal.',
  reports: ['removedHookWithoutDisposition', 'removedHookWithoutCoverage'],
  check({ registry, report }) {
    for (const entry of registry.entriesOfKind('hook')) {
      const { disposition } = entry.contract;
      if (disposition.state !== 'removed') continue;
      if (disposition.disposition.trim() === '') report('removedHookWithoutDisposition', { entry, path: ['disposition', 'disposition'] });
      if (disposition.coveredBy.length === 0) report('removedHookWithoutCoverage', { entry, path: ['disposition', 'coveredBy'] });
    }
  },
};
