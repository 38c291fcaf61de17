/**
 * What every cell of one `gate run` shares: a temporary folder holding the adapter packages
 * generated from the registry being qualified (their wheels unpacked into a site folder the
 * stand-ins import from), the stand-in agent, and how to start a Manager. Removed at the end.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { generateAdapters } from '../../../generators/index.js';
import { planAdapters, readZip, wheelName } from '../../../generators/index.js';
import type { Registry } from '../../registry/index.js';
import { AGENT_PY } from './agent-py.js';
import { acceptableProfile, type EngineProfile } from './profile.js';
import { defaultLauncher, type ManagerLauncher } from './manager-process.js';

export interface AdapterUnderTest {
  engine: string;
  /** Import name (`orbitkv_vllm`). */
  importName: string;
  distribution: string;
  /** The engine pin the package was generated for. */
  version: string;
  /** The wheel, inside `adaptersDir`. */
  wheel: string;
  /** The plugin entry point (`orbitkv_vllm.plugin:register`). */
  entryPoint: string;
  /** The profile its stand-in presents (one the registry's rejection checks accept), or null when none could be derived. */
  profile: EngineProfile | null;
}

export interface Workspace {
  root: string;
  registry: Registry;
  registryDir: string;
  adaptersDir: string;
  /** The generated `MANIFEST.json`. */
  manifest: string;
  adapters: AdapterUnderTest[];
  /** Where the wheels are unpacked: the stand-ins' import path. */
  site: string;
  agentPath: string;
  python: string;
  launcher: ManagerLauncher;
  /** A fresh folder under the workspace. */
  folder(name: string): string;
  dispose(): void;
}

export interface WorkspaceOptions {
  launcher?: ManagerLauncher;
  python?: string;
  /** Adapters generated elsewhere (a spec that breaks one on purpose): used instead of generating. */
  adaptersDir?: string;
}

/** Generates the registry's adapter packages (with wheels) into a new temporary folder and unpacks the wheels. */
export function openWorkspace(registry: Registry, o: WorkspaceOptions = {}): Workspace | { problem: string } {
  const root = mkdtempSync(join(tmpdir(), 'okv-gates-'));
  const dispose = () => rmSync(root, { recursive: true, force: true });
  const adaptersDir = o.adaptersDir ?? join(root, 'adapters');
  if (!o.adaptersDir) {
    const generated = generateAdapters(registry, { outDir: adaptersDir, wheel: true });
    const errors = generated.diagnostics.filter((d) => d.severity === 'error');
    if (errors.length > 0) {
      dispose();
      return { problem: errors.map((d) => `${d.code} ${d.message}`).join('; ') };
    }
  }
  const plan = planAdapters(registry, '0.1.0');
  const site = join(root, 'site');
  mkdirSync(site, { recursive: true });
  const adapters: AdapterUnderTest[] = [];
  for (const pkg of plan.packages) {
    const wheel = join(adaptersDir, 'wheels', wheelName(pkg));
    let bytes: Buffer;
    try {
      bytes = readFileSync(wheel);
    } catch {
      dispose();
      return { problem: `the generated wheel ${wheel} is missing` };
    }
    for (const m of readZip(bytes)) {
      if (m.name.endsWith('/')) continue;
      const to = join(site, m.name);
      if (!to.startsWith(site + '/')) continue;
      mkdirSync(dirname(to), { recursive: true });
      writeFileSync(to, m.bytes);
    }
    adapters.push({ engine: pkg.engine.name, importName: pkg.importName, distribution: pkg.distribution, version: pkg.engine.version, wheel, entryPoint: pkg.entryPoint, profile: acceptableProfile(pkg.engine.name, pkg.engine.version, registry.ofKind('rejection')) });
  }
  const agentPath = join(root, 'standin_agent.py');
  writeFileSync(agentPath, AGENT_PY);
  let n = 0;
  return {
    root,
    registry,
    registryDir: registry.root,
    adaptersDir,
    manifest: join(adaptersDir, 'MANIFEST.json'),
    adapters,
    site,
    agentPath,
    python: o.python ?? 'python3',
    launcher: o.launcher ?? defaultLauncher(),
    folder(name: string) {
      const dir = join(root, `${String(++n).padStart(3, '0')}-${name}`);
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      return dir;
    },
    dispose,
  };
}
