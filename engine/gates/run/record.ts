/**
 * `gate run --record`: one `gate.result` per cell that ran, bound to the adapter manifest's
 * hash and to the pins of the engines whose adapters the cell exercised (the generated package
 * checks the pinned version and the stand-in presents it; a cell that exercised none is bound to
 * every engine the run generated adapters for), so a pin change sends it back to pending like any
 * result. Each record is marked as run on an engine stand-in on a CPU (`data.where`), which no
 * gate that needs the real engine accepts, and carries the inputs' digests taken before and after
 * the run and, in its note, where it ran. All the results are appended as one batch or none:
 * nothing is appended when the inputs changed during the run or the ledger refuses any of them.
 */
import { diagnose, type Diagnostic } from '../../diagnostics/index.js';
import { appendEvidenceBatch, cacheDirFor, ledgerAdmission, ledgerFiles, snapshotOnCommit, type StampableDraft } from '../../lifecycle/index.js';
import type { EvidenceProfile } from '../../model/index.js';
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
  const drafts = ran.map((c): StampableDraft => {
    const gate = o.registry.get(c.gate);
    const hasMatrix = gate?.kind === 'gate' && (gate.matrix ?? []).length > 0;
    return {
      actor: o.actor,
      type: 'gate.result',
      subject: c.gate,
      profile: { engines: pinsOf(o.registry, c.engines.length > 0 ? c.engines : run.adapterEngines), adapter: run.adapter! },
      data: {
        result: c.status === 'pass' ? 'pass' : 'fail',
        ...(hasMatrix ? { cell: c.values } : {}),
        hashes: { before: run.before!.combined, after: run.after!.combined },
        where: { engine: 'stand-in', device: 'cpu' },
        note: `orbitkv gate run: ${run.place}; ${c.checks.length} checks${c.status === 'fail' ? `, failed: ${(c.error ?? c.checks.find((k) => !k.ok)?.what ?? '').slice(0, 200)}` : ''}; inputs: contracts ${run.before!.contracts.slice(0, 12)}, manifest ${run.before!.manifest.slice(0, 12)}, addon ${run.before!.addon.slice(0, 12)}`,
      },
    } as StampableDraft;
  });
  const admission = ledgerAdmission(o.registry, files, { committed: snapshotOnCommit(cacheDir, o.registry, files), ...(o.now !== undefined ? { now: () => o.now! } : {}) });
  const result = appendEvidenceBatch(files, drafts, admission);
  if (result.records.length !== drafts.length) {
    const refused = result.refused !== undefined ? ran[result.refused] : undefined;
    return { appended: [], diagnostics: [diagnose('gateRecordRefused', { contract: refused?.gate ?? '' }, refused?.gate ?? '-', refused?.cell ?? '-', drafts.length), ...result.diagnostics] };
  }
  return { appended: result.records.map((r, i) => ({ seq: r.seq, gate: ran[i]!.gate, cell: ran[i]!.cell, result: ran[i]!.status === 'pass' ? 'pass' : 'fail' })), diagnostics: [] };
}

/** The current pins of `engines`, as engine contracts record them (version, and commit where pinned). */
function pinsOf(registry: Registry, engines: readonly string[]): EvidenceProfile['engines'] {
  const out: EvidenceProfile['engines'] = {};
  for (const name of engines) {
    const engine = registry.engine(name);
    if (engine) out[name] = { version: engine.version, ...(engine.commit !== undefined ? { commit: engine.commit } : {}) };
  }
  return out;
}
