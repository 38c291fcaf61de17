import type { RegistryRule } from './rule.js';

export const rule: RegistryRule = {
  id: 'opt-in-switches',
  description: 'An opt-in hook names the environment switches that enable it.',
  reports: ['optInWithoutSwitches'],
  check({ registry, report }) {
    for (const entry of registry.entriesOfKind('hook')) {
      const { activation } = entry.contract;
      if (activation.mode === 'opt-in' && activation.switches.length === 0) report('optInWithoutSwitches', { entry, path: ['activation', 'switches'] });
    }
  },
};
