/**
 * `gate run --record`: one `gate.result` per cell that ran, bound to the adapter manifest's
 * hash and to no engine release (a stand-in engine ran, not the real one), carrying the inputs'
 * digests taken before and after the run and, in its note, where it ran. Refused, with nothing
 * appended, when the inputs changed during the run.
 */
import { diagnose, type Diagnostic } from '../../diagnostics/index.js';
import { appendEvidence, cacheDirFor, ledgerAdmission, ledgerFiles, snapshotOnCommit } from '../../lifecycle/index.js';
import type { Registry } from '../../registry/index.js';
import { changedInputs } from './inputs.js';
import type { GateRunResult } from './runner.js';

export interface RecordOptions {
  registry: Registry;
  actor: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Stands in for the clock (`$ORBITKV_NOW`). */
  now?: number;
}

export interface RecordOutcome {
  appended: { seq: number; gate: string; cell: string; result: 'pass' | 'fail' }[];
  diagnostics: Diagnostic[];
}

export function recordResults(run: GateRunResult, o: RecordOptions): RecordOutcome {
  const ran = run.cells.filter((c) => c.status !== 'skip');
  if (ran.length === 0) return { appended: [], diagnostics: [diagnose('gateRecordNothing', {})] };
  if (!run.before || !run.after || !run.adapter) return { appended: [], diagnostics: [diagnose('gateRecordNothing', {})] };
  const changed = changedInputs(run.before, run.after);
  if (changed.length > 0) return { appended: [], diagnostics: [diagnose('gateInputsChanged', {}, changed.join(', '))] };
  const files = ledgerFiles(o.registry.root);
  const cacheDir = cacheDirFor(o.cwd, o.env);
  const appended: RecordOutcome['appended'] = [];
  for (const c of ran) {
    const gate = o.registry.get(c.gate);
    const hasMatrix = gate?.kind === 'gate' && (gate.matrix ?? []).length > 0;
    const draft = {
      actor: o.actor,
      type: 'gate.result' as const,
      subject: c.gate,
      profile: { engines: {}, adapter: run.adapter },
      data: {
        result: c.status === 'pass' ? ('pass' as const) : ('fail' as const),
        ...(hasMatrix ? { cell: c.values } : {}),
        hashes: { before: run.before.combined, after: run.after.combined },
        note: `orbitkv gate run: ${run.place}; ${c.checks.length} checks${c.status === 'fail' ? `, failed: ${(c.error ?? c.checks.find((k) => !k.ok)?.what ?? '').slice(0, 200)}` : ''}; inputs: contracts ${run.before.contracts.slice(0, 12)}, manifest ${run.before.manifest.slice(0, 12)}, addon ${run.before.addon.slice(0, 12)}`,
      },
    };
    const admission = ledgerAdmission(o.registry, files, { committed: snapshotOnCommit(cacheDir, o.registry, files), ...(o.now !== undefined ? { now: () => o.now! } : {}) });
    const result = appendEvidence(files, draft as never, admission);
    if (!result.record) return { appended, diagnostics: [diagnose('gateRecordRefused', { contract: c.gate }, c.gate, c.cell, appended.length), ...result.diagnostics] };
    appended.push({ seq: result.record.seq, gate: c.gate, cell: c.cell, result: draft.data.result });
  }
  return { appended, diagnostics: [] };
}
