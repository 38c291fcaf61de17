import { kindList, referencesOf } from '../references.js';
import type { RegistryRule } from './rule.js';

export const rule: RegistryRule = {
  id: 'reference-kind',
  description: "A reference names a contract of a kind the field accepts (a removal gate's gates are gates).",
  reports: ['wrongReferenceKind'],
  check({ registry, report }) {
    for (const entry of registry.entries) {
      for (const ref of referencesOf(entry.contract)) {
        const target = registry.get(ref.id);
        if (target && !ref.kinds.includes(target.kind)) report('wrongReferenceKind', { entry, path: ref.path }, ref.id, target.kind, kindList(ref.kinds));
      }
    }
  },
};
