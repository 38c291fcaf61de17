import { modelineFor } from '../modeline.js';
import type { RegistryRule } from './rule.js';

export const rule: RegistryRule = {
  id: 'modeline',
  description: "A contract's first line is the yaml-language-server schema modeline, so editors complete and check it.",
  reports: ['modelineMissing'],
  check({ registry, report }) {
    for (const entry of registry.entries) {
      const expected = modelineFor(entry.contract.kind, entry.source.file);
      const end = entry.source.text.indexOf('\n');
      const first = (end < 0 ? entry.source.text : entry.source.text.slice(0, end)).trim();
      if (first !== expected) report('modelineMissing', { entry, range: { line: 1, col: 1, endLine: 1, endCol: first.length + 1 } }, expected);
    }
  },
};
