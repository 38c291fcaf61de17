import type { ProductScenario } from '../../model/index.js';
import type { RegistryRule } from './rule.js';

export const rule: RegistryRule = {
  id: 'product-scenario',
  description: "A gate run by the product's own runner names a scenario the product policy lists, and asks for a GPU when the scenario needs one.",
  reports: ['unknownProductScenario', 'productScenarioNeedsGpu'],
  check({ registry, report }) {
    const scenarios = new Map<string, ProductScenario>();
    for (const p of registry.ofKind('policy')) if (p.policy.rule === 'product') for (const s of p.policy.scenarios ?? []) scenarios.set(s.name, s);
    for (const entry of registry.entriesOfKind('gate')) {
      const gate = entry.contract;
      if (gate.scenario.runner !== 'product') continue;
      const found = scenarios.get(gate.scenario.scenario);
      if (!found) report('unknownProductScenario', { entry, path: ['scenario', 'scenario'] }, gate.scenario.scenario);
      else if (found.needs === 'gpu' && !gate.environment.gpu) report('productScenarioNeedsGpu', { entry, path: ['environment', 'gpu'] }, found.name);
    }
  },
};
