import { lineOf } from '../version.js';
import type { RegistryRule, RuleSite } from './rule.js';

export const rule: RegistryRule = {
  id: 'version-line',
  description: "Every version recorded with a release line is on that line (an engine's pin, a release containing a change, a released replacement).",
  reports: ['versionOffLine'],
  check({ registry, report }) {
    const check = (version: string, line: string, site: RuleSite) => {
      if (lineOf(version) !== line) report('versionOffLine', site, version, line);
    };
    for (const entry of registry.entriesOfKind('engine')) check(entry.contract.version, entry.contract.line, { entry, path: ['version'] });
    for (const entry of registry.entriesOfKind('upstream')) {
      entry.contract.releasedIn.forEach((r, i) => check(r.version, r.line, { entry, path: ['releasedIn', i, 'version'] }));
    }
    for (const entry of registry.entriesOfKind('hook')) {
      const r = entry.contract.replacement;
      if (r.status === 'released') check(r.version, r.line, { entry, path: ['replacement', 'version'] });
    }
    for (const entry of registry.entriesOfKind('gap')) {
      const r = entry.contract.upstreamFix;
      if (r.status === 'released') check(r.version, r.line, { entry, path: ['upstreamFix', 'version'] });
    }
  },
};
