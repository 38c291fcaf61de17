import type { GateContract } from '../../model/index.js';

/** The matrix axis that binds a cell to one engine: its cells need only that engine's pin. */
export const ENGINE_AXIS = 'engine';

/** A cell's key: `axis=value` pairs in the gate's axis order, or `-` for a gate with one cell. */
export function cellKey(gate: GateContract, cell: Record<string, string> | undefined): string {
  const axes = gate.matrix ?? [];
  if (axes.length === 0) return '-';
  if (axes.length === 1) {
    // One axis (the common case, asked once per gate result of a fold): one string per value, kept per gate.
    const value = cell?.[axes[0]!.axis] ?? '?';
    let byValue = oneAxisKeys.get(gate);
    if (!byValue) oneAxisKeys.set(gate, (byValue = new Map()));
    let key = byValue.get(value);
    if (key === undefined) {
      key = `${axes[0]!.axis}=${value}`;
      // Values outside the matrix (a record naming a cell the gate lacks) are not kept: the map stays bounded by the matrix.
      if (axes[0]!.values.includes(value)) byValue.set(value, key);
    }
    return key;
  }
  return axes.map((a) => `${a.axis}=${cell?.[a.axis] ?? '?'}`).join(',');
}

const oneAxisKeys = new WeakMap<GateContract, Map<string, string>>();

const slotKeys = new Map<string, Map<string, string>>();

/**
 * The `gate|cell` key a requirement context files a cell's result under, as one string object
 * per key: the specs' slot maps and the fold's events use the same object, so each of the many
 * lookups per gate result is an identity hit rather than a comparison of freshly built strings.
 */
export function slotKey(gate: string, cell: string): string {
  let byCell = slotKeys.get(gate);
  if (!byCell) slotKeys.set(gate, (byCell = new Map()));
  let key = byCell.get(cell);
  if (key === undefined) byCell.set(cell, (key = `${gate}|${cell}`));
  return key;
}

const cellsOfGate = new WeakMap<GateContract, { key: string; values: Record<string, string> }[]>();

/** Every cell of a gate, in matrix order (computed once per gate: many contracts name the same gate). */
export function gateCells(gate: GateContract): { key: string; values: Record<string, string> }[] {
  let known = cellsOfGate.get(gate);
  if (!known) {
    known = computeCells(gate);
    cellsOfGate.set(gate, known);
  }
  return known;
}

function computeCells(gate: GateContract): { key: string; values: Record<string, string> }[] {
  let cells: Record<string, string>[] = [{}];
  for (const axis of gate.matrix ?? []) cells = cells.flatMap((c) => axis.values.map((v) => ({ ...c, [axis.axis]: v })));
  return cells.map((values) => ({ key: cellKey(gate, values), values }));
}

/** Whether `cell` names exactly the gate's axes with allowed values. */
export function isCellOf(gate: GateContract, cell: Record<string, string> | undefined): boolean {
  const axes = gate.matrix ?? [];
  const given = Object.keys(cell ?? {});
  if (given.length !== axes.length) return false;
  return axes.every((a) => a.values.includes(cell?.[a.axis] ?? '\u0000'));
}

/** Versions are compared under PEP 440 by the registry's one comparison (`engine/registry/version.ts`). */
export { compareVersions, lineOf } from '../../registry/version.js';
