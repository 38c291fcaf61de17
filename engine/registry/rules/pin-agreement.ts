import type { RegistryRule } from './rule.js';

export const rule: RegistryRule = {
  id: 'pin-agreement',
  description: 'Every place that records an engine pin (package extra, submodule, lock file) agrees with the engine contract.',
  reports: ['pinDisagreement'],
  check({ registry, report }) {
    for (const entry of registry.entriesOfKind('engine')) {
      const engine = entry.contract;
      engine.recordedIn.forEach((pin, i) => {
        if (pin.version !== engine.version) report('pinDisagreement', { entry, path: ['recordedIn', i, 'version'] }, pin.place, 'version', pin.version, engine.version);
        if (pin.commit !== undefined && engine.commit !== undefined && pin.commit !== engine.commit) {
          report('pinDisagreement', { entry, path: ['recordedIn', i, 'commit'] }, pin.place, 'commit', pin.commit, engine.commit);
        }
      });
    }
  },
};
