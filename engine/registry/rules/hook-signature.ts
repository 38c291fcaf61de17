import type { HookType } from '../../model/index.js';
import type { RegistryRule } from './rule.js';

/** Hook types installed through the engine's hook registry on a dotted target: the installer fingerprints them. */
const REGISTRY_INSTALLED: ReadonlySet<HookType> = new Set<HookType>(['BEFORE', 'AFTER', 'AROUND', 'REPLACE']);

export const rule: RegistryRule = {
  id: 'hook-signature',
  description: 'A kept hook installed through the hook registry (BEFORE/AFTER/AROUND/REPLACE) records the signature its installer checks.',
  reports: ['hookSignatureMissing'],
  check({ registry, report }) {
    for (const entry of registry.entriesOfKind('hook')) {
      const hook = entry.contract;
      // A removed hook is never installed again: nothing fingerprints it.
      if (hook.disposition.state === 'kept' && REGISTRY_INSTALLED.has(hook.hookType) && !hook.signature) {
        report('hookSignatureMissing', { entry, path: ['hookType'] }, hook.hookType);
      }
    }
  },
};
