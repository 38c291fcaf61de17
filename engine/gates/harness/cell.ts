/**
 * One gate cell's run: the context a scenario's function gets (its parameters, a namespace of
 * its own, real Managers and engine stand-ins it starts, and `check` to state what must hold),
 * and the verdict: the cell passes when every check held, at least one was made, and nothing
 * threw. Everything a cell started is stopped when it ends, whatever happened.
 */
import { randomBytes } from 'node:crypto';
import type { ParameterValue } from '../scenarios.js';
import { ManagerProcess, type ManagerSpec, type PageIdentity } from './manager-process.js';
import { StandIn, type AgentError } from './standin.js';
import type { AdapterUnderTest, Workspace } from './workspace.js';

export interface Namespace {
  model: string;
  layout: string;
  blockSize: number;
}

export interface LookupResult {
  state: string;
  boundary: number | null;
  tiers: Record<string, number> | null;
  /** Why the client settled it itself (e.g. no-reply: the Manager never answered); null when the Manager's reply settled it. */
  reason?: string | null;
  polls?: number;
}

export interface Check {
  what: string;
  ok: boolean;
  detail?: string;
}

/** An engine stand-in connected to a Manager with its pages registered. */
export class EngineStandIn {
  constructor(readonly process: StandIn, readonly adapter: AdapterUnderTest, readonly namespace: Namespace, readonly pageMapping: PageIdentity, readonly pageBytes: number) {}

  call<T = unknown>(op: string, args: Record<string, unknown> = {}): Promise<T> {
    return this.process.call<T>(op, args);
  }

  attempt<T = unknown>(op: string, args: Record<string, unknown> = {}): Promise<{ value: T } | { error: AgentError }> {
    return this.process.attempt<T>(op, args);
  }

  /** Writes each page's recognisable bytes (its label repeated). */
  fill(pages: number[], labels: string[]): Promise<unknown> {
    return this.call('fill', { pages, labels });
  }

  digest(pages: number[]): Promise<string[]> {
    return this.call('digest', { pages });
  }

  save(hashes: string[], pages: number[], namespace = this.namespace): Promise<{ blocks: string[] | null }> {
    return this.call('save', { namespace, hashes, pages });
  }

  lookup(hashes: string[], o: { request?: string; rank?: number; worldSize?: number; deadlineMs?: number; namespace?: Namespace } = {}): Promise<number> {
    return this.call('lookup', { namespace: o.namespace ?? this.namespace, hashes, request: o.request ?? `req-${randomBytes(4).toString('hex')}`, rank: o.rank ?? 0, world_size: o.worldSize ?? 1, deadline_ms: o.deadlineMs ?? 5000 });
  }

  poll(ticket: number): Promise<LookupResult | null> {
    return this.call('poll', { ticket });
  }

  /** Polls until the ticket leaves pending, or `timeoutMs` passed (null). */
  wait(ticket: number, timeoutMs = 10_000): Promise<LookupResult | null> {
    return this.call('wait', { ticket, timeout: timeoutMs / 1000 });
  }

  restore(ticket: number, pages: number[]): Promise<number> {
    return this.call('restore', { ticket, pages });
  }

  waitLayer(restore: number, layer: number, timeoutMs: number): Promise<boolean> {
    return this.call('wait_layer', { restore, layer, timeout: timeoutMs / 1000 });
  }

  failedBlocks(restore: number): Promise<number[]> {
    return this.call('failed_blocks', { restore });
  }

  cancel(ticket: number) {
    return this.attempt('cancel', { ticket });
  }

  release(ticket: number) {
    return this.attempt('release', { ticket });
  }

  close() {
    return this.attempt('close');
  }

  kill(): Promise<void> {
    return this.process.kill();
  }
}

export interface EngineOptions {
  /** Pages to register (default 32). */
  pages?: number;
  /** Layers the pages are split into (default 1). */
  layers?: number;
  /** The adapter whose client to use: by engine name (default the first generated package). */
  engine?: string;
  /** Connect and register (default true); false gives a bare stand-in (packaging checks). */
  connect?: boolean;
  /** Extra folders on PYTHONPATH (stub modules). */
  path?: string[];
  env?: NodeJS.ProcessEnv;
  name?: string;
}

export interface CellContext {
  gate: string;
  cell: Readonly<Record<string, string>>;
  params: Readonly<Record<string, ParameterValue>>;
  workspace: Workspace;
  /** A namespace only this cell uses. */
  namespace: Namespace;
  /** `count` block hashes of a chain named `label`, unique to this cell. */
  hashes(label: string, count: number): string[];
  /**
   * A real Manager: one per spec shared by the scenario's cells (`own: true` starts one for this
   * cell alone), on its own temporary socket and SSD folder.
   */
  manager(spec?: ManagerSpec, o?: { own?: boolean }): Promise<ManagerProcess>;
  /** The spec `manager()` uses when given none: the scenario's. */
  managerSpec: ManagerSpec;
  /** A Python engine stand-in using the generated client, connected to `manager`. */
  engine(manager: ManagerProcess | null, o?: EngineOptions): Promise<EngineStandIn>;
  /**
   * Says the cell exercised the adapter of `engine` without starting a stand-in (a packaging
   * check): its result is bound to that engine's pin, as it is for every stand-in started.
   */
  uses(engine: string): void;
  /** States what must hold; returns `ok`. */
  check(ok: boolean, what: string, detail?: unknown): boolean;
  sleep(ms: number): Promise<void>;
  /** Polls `probe` until it is true or `timeoutMs` passed. */
  until(probe: () => boolean | Promise<boolean>, timeoutMs: number, everyMs?: number): Promise<boolean>;
}

export type ScenarioRun = (ctx: CellContext) => Promise<void>;

export interface CellVerdict {
  pass: boolean;
  /** The engines whose adapters the cell exercised (sorted): the pins its result is bound to. */
  engines: string[];
  checks: Check[];
  error?: string;
  ms: number;
}

/** The Managers a scenario's cells share, by spec; stopped when the scenario is done. */
export class ManagerPool {
  private readonly shared = new Map<string, ManagerProcess>();
  constructor(private readonly workspace: Workspace) {}

  async get(spec: ManagerSpec, own: boolean, owned: ManagerProcess[]): Promise<ManagerProcess> {
    const key = JSON.stringify(spec);
    const known = own ? undefined : this.shared.get(key);
    if (known && known.pid !== null) return known;
    const dir = this.workspace.folder('manager');
    const m = new ManagerProcess(`${dir}/m.sock`, spec.ssdBytes === 0 ? null : `${dir}/ssd`, spec, this.workspace.registryDir, this.workspace.launcher);
    if (own) owned.push(m);
    else this.shared.set(key, m);
    await m.start();
    return m;
  }

  async stop(): Promise<void> {
    await Promise.all([...this.shared.values()].map((m) => m.stop()));
    this.shared.clear();
  }
}

const short = (v: unknown) => {
  const text = typeof v === 'string' ? v : JSON.stringify(v);
  return text === undefined ? undefined : text.length > 300 ? `${text.slice(0, 300)}…` : text;
};

/** Runs one cell of `run`; never throws. */
export async function runCell(run: ScenarioRun, o: { gate: string; cell: Record<string, string>; params: Record<string, ParameterValue>; workspace: Workspace; pool: ManagerPool; accepts?: (profile: unknown) => boolean; managerSpec?: ManagerSpec }): Promise<CellVerdict> {
  const started = Date.now();
  const checks: Check[] = [];
  const owned: ManagerProcess[] = [];
  const engines: EngineStandIn[] = [];
  const bare: StandIn[] = [];
  const exercised = new Set<string>();
  const tag = randomBytes(4).toString('hex');
  const cellName = Object.entries(o.cell).map(([k, v]) => `${k}=${v}`).join(',') || '-';
  const ctx: CellContext = {
    gate: o.gate,
    cell: o.cell,
    params: o.params,
    workspace: o.workspace,
    namespace: { model: `gate-run/${o.gate}/${cellName}/${tag}`, layout: 'stand-in:cpu', blockSize: 16 },
    hashes: (label, count) => Array.from({ length: count }, (_, i) => `${tag}-${label}-${i}`),
    managerSpec: o.managerSpec ?? {},
    manager: (spec = o.managerSpec ?? {}, m = {}) => o.pool.get(spec, m.own === true, owned),
    engine: async (manager, e = {}) => {
      const adapter = (e.engine ? o.workspace.adapters.find((a) => a.engine === e.engine) : undefined) ?? o.workspace.adapters[0];
      if (!adapter) throw new Error('the registry generated no adapter package');
      exercised.add(adapter.engine);
      const process = await StandIn.start({ python: o.workspace.python, agentPath: o.workspace.agentPath, packageName: adapter.importName, path: [...(e.path ?? []), o.workspace.site], ...(e.env ? { env: e.env } : {}) });
      bare.push(process);
      const pages = e.pages ?? 32;
      const blockBytes = manager?.blockBytes ?? 65536;
      let mapping: PageIdentity = { path: null, inode: null };
      if (e.connect !== false) {
        if (!manager) throw new Error('connecting a stand-in needs a Manager');
        if (!adapter.profile || (o.accepts && !o.accepts(adapter.profile))) throw new Error(`no ${adapter.engine} profile the registry's rejections accept could be derived for the stand-in`);
        await process.call('connect', { profile: adapter.profile, role: 'worker', socket_path: manager.socket, name: e.name ?? `gate-run:${o.gate}` });
        mapping = await process.call<PageIdentity>('register', { page_bytes: blockBytes, pages, layers: e.layers ?? 1 });
      }
      const engine = new EngineStandIn(process, adapter, ctx.namespace, mapping, blockBytes);
      engines.push(engine);
      return engine;
    },
    uses: (engine) => void exercised.add(engine),
    check: (ok, what, detail) => {
      checks.push({ what, ok, ...(detail !== undefined && !ok ? { detail: short(detail)! } : {}) });
      return ok;
    },
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
    until: async (probe, timeoutMs, everyMs = 25) => {
      const end = Date.now() + timeoutMs;
      for (;;) {
        if (await probe()) return true;
        if (Date.now() > end) return false;
        await new Promise((r) => setTimeout(r, everyMs));
      }
    },
  };
  let error: string | undefined;
  try {
    await run(ctx);
  } catch (e) {
    error = e instanceof Error ? e.message : String(e);
  } finally {
    await Promise.all(bare.map((p) => p.end()));
    await Promise.all(owned.map((m) => m.stop()));
  }
  const pass = error === undefined && checks.length > 0 && checks.every((c) => c.ok);
  return { pass, engines: [...exercised].sort(), checks, ...(error !== undefined ? { error } : checks.length === 0 ? { error: 'the scenario checked nothing' } : {}), ms: Date.now() - started };
}
