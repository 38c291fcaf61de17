import type { RegistryRule, RuleSite } from './rule.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Whole days from `from` to `to` (both `YYYY-MM-DD`). */
function daysBetween(from: string, to: string): number {
  return Math.floor((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);
}

export const rule: RegistryRule = {
  id: 'recheck-age',
  description: "Engine rechecks and upstream checks are younger than the recheck policy's maxAgeDays (a warning: stale, not wrong).",
  reports: ['recheckOverdue'],
  check({ registry, today, report }) {
    const policies = registry.ofKind('policy').map((p) => p.policy).filter((p) => p.rule === 'recheck');
    if (policies.length === 0) return;
    const max = Math.min(...policies.map((p) => p.maxAgeDays));
    const check = (date: string, site: RuleSite) => {
      const age = daysBetween(date, today);
      if (age > max) report('recheckOverdue', site, date, age, max);
    };
    for (const entry of registry.entriesOfKind('engine')) check(entry.contract.lastRecheck, { entry, path: ['lastRecheck'] });
    for (const entry of registry.entriesOfKind('upstream')) check(entry.contract.checked, { entry, path: ['checked'] });
  },
};
