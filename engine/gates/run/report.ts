/**
 * What `gate run` prints: per gate its cells (passed, failed with the checks that failed,
 * skipped with why), then a count; or the same as one JSON object.
 */
import type { RecordOutcome } from './record.js';
import type { GateRunResult } from './runner.js';

export function renderText(run: GateRunResult, recorded: RecordOutcome | null): string {
  const lines: string[] = [];
  let gate = '';
  for (const c of run.cells) {
    if (c.gate !== gate) {
      gate = c.gate;
      lines.push(gate);
    }
    const mark = c.status === 'pass' ? 'passed ' : c.status === 'fail' ? 'FAILED ' : 'skipped';
    lines.push(`  ${mark} [${c.cell}]${c.status === 'skip' ? `  ${c.skip}` : `  ${c.checks.length} checks, ${(c.ms / 1000).toFixed(1)}s`}`);
    if (c.status === 'fail') {
      for (const k of c.checks.filter((x) => !x.ok)) lines.push(`          ✗ ${k.what}${k.detail ? `: ${k.detail}` : ''}`);
      if (c.error) lines.push(`          ✗ ${c.error}`);
    }
  }
  const n = (s: string) => run.cells.filter((c) => c.status === s).length;
  lines.push('');
  lines.push(`gate run: ${n('pass')} passed, ${n('fail')} failed, ${n('skip')} skipped of ${run.cells.length} cells in ${(run.ms / 1000).toFixed(1)}s${run.place ? ` (${run.place})` : ''}`);
  if (run.adapter) lines.push(`adapter ${run.adapter}; inputs ${run.before?.combined} before, ${run.after?.combined} after`);
  if (recorded) lines.push(recorded.appended.length ? `recorded ${recorded.appended.length} gate.result (seq ${recorded.appended[0]!.seq}-${recorded.appended.at(-1)!.seq})` : 'recorded nothing');
  return `${lines.join('\n')}\n`;
}

export function renderJson(run: GateRunResult, recorded: RecordOutcome | null): string {
  return `${JSON.stringify({ cells: run.cells, adapter: run.adapter, inputs: { before: run.before, after: run.after }, place: run.place, ms: run.ms, recorded: recorded?.appended ?? null, diagnostics: [...run.diagnostics, ...(recorded?.diagnostics ?? [])].map((d) => ({ code: d.code, severity: d.severity, message: d.message })) }, null, 2)}\n`;
}
