import { compareVersions } from '../version.js';
import type { RegistryRule } from './rule.js';

export const rule: RegistryRule = {
  id: 'removed-hook-pin',
  description: 'A removed hook\'s released replacement is in the pinned engine: released at or before the pinned version (PEP 440), not after it.',
  reports: ['removedHookReleasedAfterPin'],
  check({ registry, report }) {
    for (const entry of registry.entriesOfKind('hook')) {
      const { disposition, replacement, engine: name } = entry.contract;
      if (disposition.state !== 'removed' || replacement.status !== 'released') continue;
      const engine = registry.engine(name);
      if (engine && compareVersions(replacement.version, engine.version) > 0) {
        report('removedHookReleasedAfterPin', { entry, path: ['replacement', 'version'] }, replacement.version, engine.name, engine.version);
      }
    }
  },
};
