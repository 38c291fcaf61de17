import { compareVersions } from '../version.js';
import type { RegistryRule } from './rule.js';

export const rule: RegistryRule = {
  id: 'newest-seen',
  description: "An engine's newest seen release is at least its pin.",
  reports: ['newestSeenOlderThanPin'],
  check({ registry, report }) {
    for (const entry of registry.entriesOfKind('engine')) {
      const { newestSeen, version } = entry.contract;
      if (newestSeen && compareVersions(newestSeen.version, version) < 0) {
        report('newestSeenOlderThanPin', { entry, path: ['newestSeen', 'version'] }, newestSeen.version, version);
      }
    }
  },
};
