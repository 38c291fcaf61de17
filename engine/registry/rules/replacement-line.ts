import { trackedStatuses } from './replacement-state.js';
import type { RegistryRule } from './rule.js';

export const rule: RegistryRule = {
  id: 'replacement-line',
  description: 'A released replacement counts only on the pinned release line: warn when it is released elsewhere.',
  reports: ['replacementOffPinnedLine'],
  check(context) {
    for (const { entry, status, at } of trackedStatuses(context)) {
      if (status.status !== 'released') continue;
      const c = entry.contract;
      if (c.kind !== 'hook' && c.kind !== 'gap') continue;
      const engine = context.registry.engine(c.engine);
      if (engine && engine.line !== status.line) context.report('replacementOffPinnedLine', { entry, path: [at, 'line'] }, status.line, engine.name, engine.line);
    }
  },
};
