import type { Predicate } from '../../model/index.js';
import { predicateLeaves } from './predicate-operands.js';
import type { RegistryRule } from './rule.js';

/** The profile facts a predicate reads, as `env.NAME` / `config.path` / `version`, in first-read order. */
export function factsRead(when: Predicate): string[] {
  const facts = new Set<string>();
  for (const { leaf } of predicateLeaves(when, [])) {
    if ('env' in leaf) facts.add(`env.${leaf.env}`);
    else if ('config' in leaf) facts.add(`config.${leaf.config}`);
    else facts.add('version');
  }
  return [...facts];
}

export const rule: RegistryRule = {
  id: 'rejection-facts',
  description: "A rejection's 'facts' list names exactly the profile facts its predicate reads.",
  reports: ['rejectionFactsMismatch'],
  check({ registry, report }) {
    for (const entry of registry.entriesOfKind('rejection')) {
      const { facts, when } = entry.contract;
      if (facts === undefined) continue;
      const read = factsRead(when);
      const expected = read.join(', ');
      facts.forEach((fact, i) => {
        if (!read.includes(fact)) report('rejectionFactsMismatch', { entry, path: ['facts', i] }, fact, 'is listed but the predicate never reads it', expected);
        else if (facts.indexOf(fact) !== i) report('rejectionFactsMismatch', { entry, path: ['facts', i] }, fact, 'is listed twice', expected);
      });
      for (const fact of read) {
        if (!facts.includes(fact)) report('rejectionFactsMismatch', { entry, path: ['facts'] }, fact, 'is read by the predicate but not listed', expected);
      }
    }
  },
};
