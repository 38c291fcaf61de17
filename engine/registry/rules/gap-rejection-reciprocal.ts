import type { RegistryRule } from './rule.js';

export const rule: RegistryRule = {
  id: 'gap-rejection-reciprocal',
  description: "A rejection a gap's consequence names is justified by that gap (the link is recorded on both sides).",
  reports: ['gapRejectionNotReciprocal'],
  check({ registry, report }) {
    for (const entry of registry.entriesOfKind('gap')) {
      entry.contract.consequence.rejections.forEach((id, i) => {
        const rejection = registry.get(id);
        if (rejection?.kind === 'rejection' && !rejection.justifiedBy.includes(entry.contract.id)) {
          report('gapRejectionNotReciprocal', { entry, path: ['consequence', 'rejections', i] }, id, entry.contract.id);
        }
      });
    }
  },
};
