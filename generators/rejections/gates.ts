import type { Registry } from '../../engine/registry/index.js';
import type { RemovalGate, UpstreamCondition } from '../../engine/model/index.js';

/** One step of what must happen before a rejected profile may reopen (or a hook may go). */
export interface GateStep {
  /** The gap or hook contract whose reopening / removal gate this is. */
  contract: string;
  upstream: UpstreamCondition[];
  gates: string[];
}

/**
 * The reopening gates of the named gaps and the removal gates of the named kept hooks (a
 * removed hook's gate was already met; other kinds have none).
 */
export function gateSteps(registry: Registry, ids: readonly string[]): GateStep[] {
  const steps: GateStep[] = [];
  for (const id of ids) {
    const c = registry.get(id);
    if (c?.kind === 'gap') steps.push(step(id, c.reopening));
    else if (c?.kind === 'hook' && c.disposition.state === 'kept') steps.push(step(id, c.removalGate));
  }
  return steps;
}

function step(contract: string, gate: Pick<RemovalGate, 'upstream' | 'gates'>): GateStep {
  return {
    contract,
    upstream: gate.upstream.map((u) => (u.upstream !== undefined ? { upstream: u.upstream, requires: u.requires } : { requires: u.requires })),
    gates: [...gate.gates],
  };
}
