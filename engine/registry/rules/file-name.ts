import type { RegistryRule } from './rule.js';

export const rule: RegistryRule = {
  id: 'file-name',
  description: "A contract lives in a file named by its id ('<id>.yaml'), so a reader finds it from a reference.",
  reports: ['fileNameMismatch'],
  check({ registry, report }) {
    for (const entry of registry.entries) {
      const base = entry.source.file.slice(entry.source.file.lastIndexOf('/') + 1);
      const id = entry.contract.id;
      if (base !== `${id}.yaml` && base !== `${id}.yml`) report('fileNameMismatch', { entry, path: ['id'] }, id, entry.source.file);
    }
  },
};
