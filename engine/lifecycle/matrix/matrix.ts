import type { Registry } from '../../registry/index.js';
import type { FoldState, Pin } from '../fold/index.js';
import {
  type CellSpec, type GateContext, type RequirementContext, type UpstreamContext,
  cellBlocker, consumingAdapter, gateCellBlocker, releasedAfterPin, releasedOnPinnedLine, upstreamStanding,
} from '../machines/index.js';

/** One cell of a removal (or reopening, or drop) matrix: gate × cell × profile × result. */
export interface MatrixCell {
  path: 'removal' | 'drop' | 'reopening' | 'gate';
  gate: string;
  cell: string;
  /** `pass`, `fail`, or `none` (no result on the current pins). */
  result: 'pass' | 'fail' | 'none';
  /** The profile the result is bound to: engines at their pins and the adapter hash (short). */
  profile: string;
  actor?: string;
  seq?: number;
  /** Why the cell does not count yet; undefined when it does. */
  blocker?: string;
  independent: boolean;
}

/** One upstream condition: released on the pinned line? consumed by the adapter? */
export interface ConditionRow {
  index: number;
  subject: string;
  upstream?: string;
  requires: string;
  release: string;
  consumed?: { seq: number; adapter?: string };
  blocker?: string;
}

export interface ContractMatrix {
  id: string;
  kind: string;
  state: string;
  conditions: ConditionRow[];
  cells: MatrixCell[];
  /** The adapter the removal gates must pass on (the consuming adapter), when known. */
  adapter?: string;
}

const short = (hash: string | undefined) => (hash ? hash.slice(0, 12) : '-');

function profileText(pins: Record<string, Pin>, r: { engines: readonly string[]; adapter?: string; standIn: boolean }): string {
  const parts = r.engines.map((e) => `${e} ${pins[e]?.version ?? '?'}`);
  parts.push(`adapter ${short(r.adapter)}`);
  if (r.standIn) parts.push('on an engine stand-in');
  return parts.join(', ');
}

/** The matrix behind a contract's state, read from the fold; undefined for untracked contracts. */
export function contractMatrix(registry: Registry, fold: FoldState, id: string, options: { profiles?: boolean } = {}): ContractMatrix | undefined {
  // The board needs only blockers; describing each result's profile is for `explain`.
  const describe = options.profiles === false ? () => '-' : profileText;
  const contract = registry.get(id);
  const folded = fold.contracts[id];
  if (!contract || !folded) return undefined;
  if (contract.kind === 'gate') {
    const ctx = folded.context as GateContext;
    const cells: MatrixCell[] = ctx.spec.cells.map((cell) => {
      const r = ctx.results[cell];
      const blocker = gateCellBlocker(ctx, cell);
      return matrixCell('gate', id, cell, r, r ? describe(fold.pins, r) : '-', blocker, ctx.spec.independent);
    });
    return { id, kind: contract.kind, state: folded.value, conditions: [], cells };
  }
  if (contract.kind === 'upstream') return { id, kind: contract.kind, state: folded.value, conditions: [], cells: [] };
  const ctx = folded.context as RequirementContext;
  const spec = ctx.spec;
  const adapter = spec.conditions.length ? consumingAdapter(ctx) : undefined;
  const conditions: ConditionRow[] = spec.conditions.map((c) => {
    const consumption = ctx.consumed[c.slot];
    const released = releasedOnPinnedLine(ctx, c);
    const release = describeRelease(fold, ctx.released[c.slot] ?? [], c.upstream, consumption?.release);
    const after = released ? undefined : releasedAfterPin(ctx, c);
    const blocker = after
      ? `released in ${after.version}, after the pin ${ctx.pin!.version}: move the pin and re-run the gates`
      : !released ? `not released on the pinned ${spec.engine} line ${ctx.pin?.line ?? '?'} (${release})` : !consumption ? 'released, not consumed by the adapter' : undefined;
    // Optional fields assigned, not spread from temporaries (the board builds thousands): same keys, same order.
    const row: ConditionRow = { index: c.index, subject: c.subject, requires: c.requires, release };
    if (c.upstream) row.upstream = c.upstream;
    if (consumption) {
      const consumed: NonNullable<ConditionRow['consumed']> = { seq: consumption.seq };
      if (consumption.adapter) consumed.adapter = consumption.adapter;
      row.consumed = consumed;
    }
    if (blocker) row.blocker = blocker;
    return row;
  });
  const path = contract.kind === 'hook' ? 'removal' : 'reopening';
  const cellRows = (cells: readonly CellSpec[], p: MatrixCell['path'], profileAdapter: string | undefined): MatrixCell[] => {
    let common = profileAdapter;
    return cells.map((cell) => {
      const r = ctx.results[cell.slot];
      const blocker = cellBlocker(ctx, cell, common);
      if (common === undefined && cell.hashes !== 'none' && !blocker) common = r?.adapter;
      return matrixCell(p, cell.gate, cell.cell, r, r ? describe(fold.pins, r) : '-', blocker, cell.independent);
    });
  };
  const removal = cellRows(spec.cells, path, adapter);
  const cells = spec.dropCells.length ? removal.concat(cellRows(spec.dropCells, 'drop', undefined)) : removal;
  return { id, kind: contract.kind, state: folded.value, conditions, cells, ...(adapter ? { adapter } : {}) };
}

/** One cell, built field by field (the board builds tens of thousands). */
function matrixCell(path: MatrixCell['path'], gate: string, cell: string, r: { pass: boolean; actor: string; seq: number } | null | undefined, profile: string, blocker: string | undefined, independent: boolean): MatrixCell {
  const out: MatrixCell = { path, gate, cell, result: r ? (r.pass ? 'pass' : 'fail') : 'none', profile, independent };
  if (r) {
    out.actor = r.actor;
    out.seq = r.seq;
  }
  if (blocker !== undefined) out.blocker = blocker;
  return out;
}

function describeRelease(fold: FoldState, released: readonly { line: string; version: string }[], upstream: string | undefined, release: { line: string; version: string } | undefined): string {
  if (upstream) {
    const u = fold.contracts[upstream]?.context as UpstreamContext | undefined;
    if (!u) return `${upstream} is not in the registry`;
    const standing = upstreamStanding(u);
    const lines = released.map((r) => `${r.version} on ${r.line}`);
    if (lines.length) return `${upstream} released in ${lines.join(', ')}`;
    return `${upstream} ${standing === 'unverified' ? 'has no recorded state' : `is ${standing}`}`;
  }
  return release ? `released in ${release.version} on ${release.line}` : 'no release recorded in the ledger';
}

/** Short blocker lines: unmet conditions first, then blocking cells grouped by gate. */
export function blockerLines(matrix: ContractMatrix): string[] {
  const lines: string[] = [];
  for (const c of matrix.conditions) {
    if (!c.blocker) continue;
    const name = c.upstream ?? `untracked replacement #${c.index}${c.subject !== matrix.id ? ` of ${c.subject}` : ''}`;
    const line = `${name}: ${c.blocker}`;
    if (!lines.includes(line)) lines.push(line);
  }
  const byGate = new Map<string, { path: string; cells: MatrixCell[] }>();
  for (const cell of matrix.cells) {
    if (!cell.blocker) continue;
    const key = `${cell.path}|${cell.gate}`;
    const entry = byGate.get(key) ?? { path: cell.path, cells: [] };
    entry.cells.push(cell);
    byGate.set(key, entry);
  }
  for (const { path, cells } of byGate.values()) {
    const gate = cells[0]!.gate;
    // Each distinct reason once, in first-seen order.
    const seen: string[] = [];
    for (const c of cells) if (!seen.includes(c.blocker!)) seen.push(c.blocker!);
    const reasons = seen.join('; ');
    const prefix = path === 'drop' ? 'drop path: ' : '';
    const which = cells.length === 1 && cells[0]!.cell === '-' ? '' : ` (${cells.length} cell${cells.length === 1 ? '' : 's'})`;
    lines.push(`${prefix}${gate}${which}: ${reasons}`);
  }
  return lines;
}
