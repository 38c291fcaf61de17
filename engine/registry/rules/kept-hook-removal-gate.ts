import type { RegistryRule } from './rule.js';

export const rule: RegistryRule = {
  id: 'kept-hook-removal-gate',
  description: 'A kept hook says how it may go: an upstream condition (or a drop alternative) and the gates to pass.',
  reports: ['keptHookWithoutRemovalGate'],
  check({ registry, report }) {
    for (const entry of registry.entriesOfKind('hook')) {
      const { disposition, removalGate } = entry.contract;
      if (disposition.state !== 'kept') continue;
      if (removalGate.gates.length === 0) report('keptHookWithoutRemovalGate', { entry, path: ['removalGate', 'gates'] }, 'no qualification gate');
      if (removalGate.upstream.length === 0 && !removalGate.dropAlternative) {
        report('keptHookWithoutRemovalGate', { entry, path: ['removalGate', 'upstream'] }, 'no upstream condition and no drop alternative');
      }
    }
  },
};
