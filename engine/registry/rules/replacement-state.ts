import type { UpstreamStatus } from '../../model/index.js';
import type { ContractEntry } from '../registry.js';
import type { RegistryRule, RuleContext } from './rule.js';

/** The status fields that track an upstream change: a hook's replacement and a gap's fix. */
export function trackedStatuses(context: RuleContext): Array<{ entry: ContractEntry; status: UpstreamStatus; at: string }> {
  const out: Array<{ entry: ContractEntry; status: UpstreamStatus; at: string }> = [];
  for (const entry of context.registry.entriesOfKind('hook')) out.push({ entry, status: entry.contract.replacement, at: 'replacement' });
  for (const entry of context.registry.entriesOfKind('gap')) out.push({ entry, status: entry.contract.upstreamFix, at: 'upstreamFix' });
  return out;
}

export const rule: RegistryRule = {
  id: 'replacement-state',
  description: "A replacement's status agrees with its upstream contract: proposed is open, merged is merged (same commit), released is listed in releasedIn.",
  reports: ['replacementStateMismatch'],
  check(context) {
    for (const { entry, status, at } of trackedStatuses(context)) {
      if (status.status !== 'proposed' && status.status !== 'merged' && status.status !== 'released') continue;
      if (status.upstream === undefined) continue;
      const upstream = context.registry.get(status.upstream);
      if (upstream?.kind !== 'upstream') continue;
      const site = { entry, path: [at, 'status'] };
      if (status.status === 'proposed' && upstream.state !== 'open') {
        context.report('replacementStateMismatch', site, status.status, upstream.id, `is '${upstream.state}'`);
      } else if (status.status === 'merged') {
        if (upstream.state !== 'merged') context.report('replacementStateMismatch', site, status.status, upstream.id, `is '${upstream.state}'`);
        else if (upstream.mergeCommit !== undefined && upstream.mergeCommit !== status.commit) {
          context.report('replacementStateMismatch', { entry, path: [at, 'commit'] }, status.status, upstream.id, `records merge commit ${upstream.mergeCommit}`);
        }
      } else if (status.status === 'released') {
        const listed = upstream.releasedIn.some((r) => r.line === status.line && r.version === status.version);
        if (!listed) context.report('replacementStateMismatch', { entry, path: [at, 'version'] }, `released in ${status.version}`, upstream.id, `lists no release ${status.version} on line ${status.line}`);
      }
    }
  },
};
