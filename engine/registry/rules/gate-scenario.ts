import { SCENARIOS, scenario } from '../../gates/index.js';
import { nearest } from '../schema.js';
import type { RegistryRule } from './rule.js';

export const rule: RegistryRule = {
  id: 'gate-scenario',
  description: "A runnable gate names a scenario from the gate catalogue, and asks for a GPU when the scenario needs one.",
  reports: ['unknownScenario', 'scenarioNeedsGpu'],
  check({ registry, report }) {
    for (const entry of registry.entriesOfKind('gate')) {
      const gate = entry.contract;
      if (gate.scenario.runner !== 'orbitkv') continue;
      const found = scenario(gate.scenario.scenario);
      if (!found) {
        const names = SCENARIOS.map((s) => s.name);
        report('unknownScenario', { entry, path: ['scenario', 'scenario'] }, gate.scenario.scenario, nearest(gate.scenario.scenario, names));
      } else if (found.needs === 'gpu' && !gate.environment.gpu) {
        report('scenarioNeedsGpu', { entry, path: ['environment', 'gpu'] }, found.name);
      }
    }
  },
};
