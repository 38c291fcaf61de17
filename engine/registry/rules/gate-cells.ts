import { existsSync, statSync } from 'node:fs';
import { isAbsolute, resolve, sep } from 'node:path';
import { scenario } from '../../gates/index.js';
import type { RegistryRule } from './rule.js';

/**
 * What `orbitkv gate run` needs of a gate it runs: every matrix axis and value is one the
 * catalogue scenario maps to parameters, a gate that needs the real engine is not given to a
 * stand-in scenario, and a product scenario's module is a file inside the registry folder.
 */
export const rule: RegistryRule = {
  id: 'gate-cells',
  description: 'A runnable gate uses only the matrix axes and values its scenario maps to parameters, does not ask a stand-in scenario for the real engine, and a product scenario module is a file in the registry.',
  reports: ['gateAxisUnknown', 'gateAxisValueUnknown', 'gateNeedsRealEngine', 'productScenarioModule'],
  check({ registry, report }) {
    const modules = new Set<string>();
    for (const p of registry.ofKind('policy')) if (p.policy.rule === 'product') for (const s of p.policy.scenarios ?? []) if (s.module !== undefined && s.needs === 'cpu') modules.add(s.name);
    for (const entry of registry.entriesOfKind('gate')) {
      const gate = entry.contract;
      if (gate.scenario.runner === 'external') continue;
      // What gate run would run on a stand-in: a catalogue CPU scenario, or a product scenario with a module.
      const standIn = gate.scenario.runner === 'orbitkv' ? scenario(gate.scenario.scenario)?.needs === 'cpu' : modules.has(gate.scenario.scenario);
      if (gate.evidence.hashes === 'engine-and-adapter' && standIn && !gate.environment.gpu) report('gateNeedsRealEngine', { entry, path: ['evidence', 'hashes'] }, gate.id, gate.scenario.scenario);
      if (gate.scenario.runner !== 'orbitkv') continue;
      const found = scenario(gate.scenario.scenario);
      if (!found) continue;
      (gate.matrix ?? []).forEach((axis, i) => {
        const values = found.parameters.axes[axis.axis];
        if (!values) {
          report('gateAxisUnknown', { entry, path: ['matrix', i, 'axis'] }, axis.axis, found.name, Object.keys(found.parameters.axes).join(', ') || 'none');
          return;
        }
        axis.values.forEach((v, j) => {
          if (!Object.hasOwn(values, v)) report('gateAxisValueUnknown', { entry, path: ['matrix', i, 'values', j] }, v, axis.axis, found.name, Object.keys(values).join(', '));
        });
      });
    }
    const root = resolve(registry.root);
    for (const entry of registry.entriesOfKind('policy')) {
      const rule = entry.contract.policy;
      if (rule.rule !== 'product') continue;
      (rule.scenarios ?? []).forEach((s, i) => {
        if (s.module === undefined) return;
        const path = resolve(root, s.module);
        const inside = !isAbsolute(s.module) && path.startsWith(root + sep);
        if (!inside || !existsSync(path) || !statSync(path).isFile()) report('productScenarioModule', { entry, path: ['policy', 'scenarios', i, 'module'] }, s.module, s.name);
      });
    }
  },
};
