/**
 * Which gates a `gate run` runs and how (pure): every gate named (or all), each with its
 * scenario's run function and one planned cell per matrix cell (its key, its axis values and
 * the parameters the scenario maps them to), or the reason it does not run here: an external
 * procedure, a GPU, the real engine, or a product scenario its product runs itself.
 */
import { isAbsolute, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { diagnose, type Diagnostic } from '../../diagnostics/index.js';
import { gateCells } from '../../lifecycle/machines/index.js';
import type { GateContract } from '../../model/index.js';
import type { Registry } from '../../registry/index.js';
import type { ManagerSpec, ScenarioRun } from '../harness/index.js';
import { scenario as catalogued, type ParameterValue, type ScenarioParameters } from '../scenarios.js';

export interface PlannedCell {
  key: string;
  values: Record<string, string>;
  params: Record<string, ParameterValue>;
}

export interface PlannedGate {
  gate: GateContract;
  /** The scenario name (catalogue or product), or null for an external procedure. */
  scenario: string | null;
  /** Why it does not run here, or null when it does. */
  skip: string | null;
  load: (() => Promise<ScenarioRun>) | null;
  cells: PlannedCell[];
  /** The Manager its scenario runs against (null: none; undefined: not known before it runs). */
  manager?: ManagerSpec | null;
}

/** A cell's parameters: the defaults, then each axis value's; null when an axis or value is unknown. */
export function cellParameters(parameters: ScenarioParameters, values: Record<string, string>): Record<string, ParameterValue> | null {
  const out: Record<string, ParameterValue> = { ...parameters.defaults };
  for (const [axis, value] of Object.entries(values)) {
    const set = parameters.axes[axis]?.[value];
    if (!set) return null;
    Object.assign(out, set);
  }
  return out;
}

/** The product scenario module's path, when it is a file inside the registry folder. */
export function productModulePath(registry: Registry, module: string): string | null {
  if (isAbsolute(module)) return null;
  const root = resolve(registry.root);
  const path = resolve(root, module);
  return path.startsWith(root + sep) ? path : null;
}

export function planGates(registry: Registry, ids: readonly string[] | 'all'): { gates: PlannedGate[]; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  let gates: GateContract[];
  if (ids === 'all') gates = registry.ofKind('gate');
  else {
    gates = [];
    for (const id of ids) {
      const c = registry.get(id);
      if (!c) diagnostics.push(diagnose('gateRunUnknown', { contract: id }, id));
      else if (c.kind !== 'gate') diagnostics.push(diagnose('gateRunNotAGate', { contract: id }, id, c.kind));
      else gates.push(c);
    }
  }
  const product = registry.ofKind('policy').map((p) => p.policy).find((p) => p.rule === 'product');
  const planned = gates.map((gate): PlannedGate => {
    const cells = gateCells(gate);
    const plain = (skip: string, scenario: string | null): PlannedGate => ({ gate, scenario, skip, load: null, cells: cells.map((c) => ({ key: c.key, values: c.values, params: {} })) });
    const s = gate.scenario;
    if (s.runner === 'external') return plain('external procedure: record its results with `orbitkv evidence add gate.result`', null);
    if (gate.environment.gpu) return plain('needs a GPU', s.scenario);
    if (gate.evidence.hashes === 'engine-and-adapter') return plain('needs the real engine (evidence hashes the engine installation)', s.scenario);
    let parameters: ScenarioParameters | undefined;
    let load: (() => Promise<ScenarioRun>) | undefined;
    let manager: ManagerSpec | null | undefined;
    if (s.runner === 'orbitkv') {
      const found = catalogued(s.scenario);
      if (!found) return plain('unknown scenario', s.scenario);
      if (found.needs === 'gpu' || !found.load) return plain('needs a GPU', s.scenario);
      parameters = found.parameters;
      load = found.load;
      manager = found.manager;
    } else {
      const own = product?.rule === 'product' ? product.scenarios?.find((p) => p.name === s.scenario) : undefined;
      if (!own) return plain('unknown product scenario', s.scenario);
      if (own.needs === 'gpu') return plain('needs a GPU', s.scenario);
      if (own.needs === 'engine') return plain('needs the real engine', s.scenario);
      if (!own.module) return plain("the product's own runner records it (its scenario names no module)", s.scenario);
      const path = productModulePath(registry, own.module);
      if (!path) return plain('its module is not inside the registry folder', s.scenario);
      let module: { run?: ScenarioRun; parameters?: ScenarioParameters } | undefined;
      const get = async () => (module ??= (await import(pathToFileURL(path).href)) as { run?: ScenarioRun; parameters?: ScenarioParameters });
      load = async () => {
        const m = await get();
        if (typeof m.run !== 'function') throw new Error(`${own.module} exports no run function`);
        return m.run;
      };
      // A product module's parameters are read when it loads; until then its cells carry their axis values.
      parameters = { defaults: {}, axes: Object.fromEntries((gate.matrix ?? []).map((a) => [a.axis, Object.fromEntries(a.values.map((v) => [v, { [a.axis]: v }]))])) };
    }
    const out: PlannedCell[] = [];
    for (const c of cells) {
      const params = cellParameters(parameters, c.values);
      if (!params) return plain(`a matrix value the scenario does not know (${c.key})`, s.scenario);
      out.push({ key: c.key, values: c.values, params });
    }
    return { gate, scenario: s.scenario, skip: null, load, cells: out, ...(manager !== undefined ? { manager } : {}) };
  });
  return { gates: planned, diagnostics };
}
