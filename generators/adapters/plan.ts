import { diagnose, type Diagnostic } from '../../engine/diagnostics/index.js';
import type { EngineContract, LazyImportRule, WheelContentsRule } from '../../engine/model/index.js';
import type { Registry } from '../../engine/registry/index.js';
import { managerEndpoint } from '../../engine/runtime/endpoint/index.js';
import { rejectionTable } from '../rejections/index.js';
import { type Product, productOf } from '../../engine/registry/index.js';
import { PYTHON_BUILTINS } from './builtins.js';
import { type AdapterTemplate, type TemplateContext, REGISTRY_HOOK_TYPES } from './template.js';
import { ADAPTER_TEMPLATES } from './templates.js';

/** Everything needed to write one adapter package; `data` becomes `_data.py`. */
export interface AdapterPackage {
  engine: EngineContract;
  distribution: string;
  importName: string;
  /** The product the package belongs to (names, env prefix, metadata). */
  product: Product;
  /** The entry point's name in its group (the product's package prefix). */
  entryPointName: string;
  version: string;
  entryPointGroup: string;
  /** `orbitkv_vllm.plugin:register`. */
  entryPoint: string;
  template: AdapterTemplate;
  /** The template modules of the chosen integration style, by file name. */
  modules: Record<string, string>;
  data: Record<string, unknown>;
}

/** A runtime engine that got no package, and why (the diagnostic's code). */
export interface SkippedEngine {
  engine: string;
  code: string;
}

export interface AdapterPlan {
  packages: AdapterPackage[];
  /** Runtime engines without a package: no template, or errors in their contracts. */
  skipped: SkippedEngine[];
  diagnostics: Diagnostic[];
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const DISTRIBUTION = /^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/;
const GROUP = /^[A-Za-z0-9_.-]+$/;

/** Names a template module binds at top level (`def x`, `class x`, `x =`), so hook bodies cannot shadow them. */
function boundNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const m of text.matchAll(/^(?:def|class)\s+([A-Za-z_][A-Za-z0-9_]*)|^([A-Za-z_][A-Za-z0-9_]*)\s*=|^import\s+([A-Za-z_][A-Za-z0-9_]*)|^from\s+\S+\s+import\s+(.+)$/gm)) {
    for (const n of [m[1], m[2], m[3]]) if (n) names.add(n);
    if (m[4]) for (const n of m[4].split(',')) names.add(n.trim());
  }
  return names;
}

/**
 * Plans one package per runtime engine that has a template: import name from the engine's
 * interface `adapterClass`, entry point from `engine.plugins`, data from the engine, rejection,
 * hook, interface and policy contracts. Pure: returns data and diagnostics.
 */
export function planAdapters(registry: Registry, version: string): AdapterPlan {
  const diagnostics: Diagnostic[] = [];
  const packages: AdapterPackage[] = [];
  const skipped: SkippedEngine[] = [];
  const known = Object.keys(ADAPTER_TEMPLATES).sort().join(', ');
  const engines = registry.ofKind('engine').filter((e) => e.role === 'runtime').sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const lazy = registry.ofKind('policy').find((p) => p.policy.rule === 'lazy-import');
  const product = productOf(registry);
  /** Import names already planned (even with errors), so two engines never share one package. */
  const claimed = new Map<string, string>();
  for (const engine of engines) {
    const site = (path: (string | number)[]) => ({ contract: engine.id, ...registry.locate(engine.id, path) });
    const template = Object.prototype.hasOwnProperty.call(ADAPTER_TEMPLATES, engine.name) ? ADAPTER_TEMPLATES[engine.name] : undefined;
    const interfaces = registry.ofKind('interface').filter((i) => i.engine === engine.name).sort((a, b) => (a.id < b.id ? -1 : 1));
    const adapters = interfaces.filter((i) => i.adapterClass !== undefined);
    if (!template) {
      // The registry expects an adapter when the engine loads plugins or an interface names an adapter class.
      const expected = adapters[0];
      const d = expected
        ? diagnose('adapterTemplateExpected', { contract: expected.id, ...registry.locate(expected.id, ['adapterClass']) }, engine.name, expected.adapterClass!, known)
        : engine.plugins
          ? diagnose('adapterTemplateExpected', site(['plugins']), engine.name, `plugins.entryPointGroup ${engine.plugins.entryPointGroup}`, known)
          : diagnose('noAdapterTemplate', site(['name']), engine.name, known);
      diagnostics.push(d);
      skipped.push({ engine: engine.name, code: d.code });
      continue;
    }
    const before = diagnostics.length;
    const skip = () => {
      const first = diagnostics.slice(before).find((d) => d.severity === 'error');
      skipped.push({ engine: engine.name, code: first?.code ?? '' });
    };
    if (!engine.plugins) diagnostics.push(diagnose('noPluginLoading', site([]), engine.name));
    else if (!GROUP.test(engine.plugins.entryPointGroup)) diagnostics.push(diagnose('unsafeName', site(['plugins', 'entryPointGroup']), 'entry-point group', engine.plugins.entryPointGroup, GROUP.source));
    if (!DISTRIBUTION.test(engine.distribution)) diagnostics.push(diagnose('unsafeName', site(['distribution']), 'distribution', engine.distribution, DISTRIBUTION.source));
    const first = adapters[0];
    if (!first) {
      diagnostics.push(diagnose('noAdapterClass', site(['name']), engine.name));
      skip();
      continue;
    }
    const importName = first.adapterClass!.split('.')[0]!;
    const taken = claimed.get(importName);
    if (taken !== undefined) {
      diagnostics.push(diagnose('adapterPackageConflict', { contract: first.id, ...registry.locate(first.id, ['adapterClass']) }, first.adapterClass!, `a package other than ${importName} (already the adapter of ${taken})`));
      skip();
      continue;
    }
    claimed.set(importName, engine.name);
    if (!importName.startsWith(`${product.packagePrefix}_`))
      diagnostics.push(diagnose('adapterPrefixMismatch', { contract: first.id, ...registry.locate(first.id, ['adapterClass']) }, importName, product.packagePrefix, product.contract ?? 'the derived product'));
    const hooks = registry.ofKind('hook').filter((h) => h.engine === engine.name && h.disposition.state === 'kept').sort((a, b) => (a.id < b.id ? -1 : 1));
    const context: TemplateContext = { registry, engine, interfaces, hooks, importName, product };
    const templateData = template.data(context);
    diagnostics.push(...templateData.diagnostics);
    if (templateData.adapterModule === '') {
      // No integration style: the template's own findings say why; nothing else can be checked.
      skip();
      continue;
    }
    for (const iface of adapters) {
      const parts = iface.adapterClass!.split('.');
      const at = { contract: iface.id, ...registry.locate(iface.id, ['adapterClass']) };
      if (parts[0] !== importName) diagnostics.push(diagnose('adapterPackageConflict', at, iface.adapterClass!, importName));
      else if (parts.length !== 3 || parts[1] !== templateData.adapterModule) diagnostics.push(diagnose('templateDoesNotProvide', at, iface.adapterClass!, `${importName}.${templateData.adapterModule}.<Class>`));
    }
    const hookNames = template.hookModule ? boundNames(templateData.modules[`${template.hookModule}.py`] ?? '') : new Set<string>();
    const implementedBy = new Map<string, string>();
    for (const hook of hooks) {
      const at = (path: string[]) => ({ contract: hook.id, ...registry.locate(hook.id, path) });
      const other = hook.implementation === undefined ? undefined : implementedBy.get(hook.implementation);
      if (other !== undefined) diagnostics.push(diagnose('hookImplementationShared', at(['implementation']), hook.implementation!, other));
      if (hook.implementation !== undefined) implementedBy.set(hook.implementation, hook.id);
      const installed = REGISTRY_HOOK_TYPES.includes(hook.hookType);
      if (installed && !hook.signature) diagnostics.push(diagnose('hookWithoutSignature', at(['hookType']), hook.hookType));
      if (!hook.implementation) {
        if (installed) diagnostics.push(diagnose('hookImplementationMissing', at(['hookType']), hook.hookType));
        continue;
      }
      const parts = hook.implementation.split('.');
      if (parts[0] !== importName) {
        diagnostics.push(diagnose('adapterPackageConflict', at(['implementation']), hook.implementation, importName));
        continue;
      }
      const local = parts.slice(1).join('.');
      const name = parts[2] ?? '';
      if (installed && parts.length === 3 && parts[1] === template.hookModule && (hookNames.has(name) || PYTHON_BUILTINS.has(name))) {
        diagnostics.push(diagnose('hookNameShadows', at(['implementation']), hook.implementation, hookNames.has(name) ? `a name ${template.hookModule}.py defines` : 'a Python builtin'));
        continue;
      }
      const ok = installed
        ? template.hookModule !== undefined && parts.length === 3 && parts[1] === template.hookModule && IDENTIFIER.test(name) && !name.startsWith('_')
        : templateData.provides.includes(local) || (parts.length === 3 && parts[1] === templateData.adapterModule && adapters.some((i) => i.adapterClass === hook.implementation));
      if (!ok) diagnostics.push(diagnose('templateDoesNotProvide', at(['implementation']), hook.implementation, [...templateData.provides.map((p) => `${importName}.${p}`), ...(template.hookModule ? [`${importName}.${template.hookModule}.<new function name>`] : [])].join(', ') || 'nothing'));
    }
    if (diagnostics.slice(before).some((d) => d.severity === 'error')) {
      skip();
      continue;
    }
    const table = rejectionTable(registry, [engine.name]);
    const distribution = importName.replace(/_/g, '-');
    const entryPoint = `${importName}.${template.entryPoint}`;
    const entryPointName = product.packagePrefix;
    packages.push({
      engine,
      distribution,
      importName,
      product,
      entryPointName,
      version,
      entryPointGroup: engine.plugins!.entryPointGroup,
      entryPoint,
      template,
      modules: templateData.modules,
      data: {
        product: { contract: product.contract, name: product.name, packagePrefix: product.packagePrefix, envPrefix: product.envPrefix },
        // Where the client finds the Manager and how it names it: the rule serve applies too.
        manager: managerEndpoint(product),
        package: { distribution, importName, version, engine: engine.name, entryPoint: { group: engine.plugins!.entryPointGroup, name: entryPointName, value: entryPoint } },
        engine: {
          contract: engine.id,
          name: engine.name,
          distribution: engine.distribution,
          package: engine.package ?? engine.name,
          version: engine.version,
          commit: engine.commit ?? null,
          line: engine.line,
          allowlistEnv: engine.plugins?.allowlistEnv ?? null,
        },
        contracts: {
          interfaces: interfaces.map((i) => i.id),
          hooks: hooks.map((h) => h.id),
          rejections: table.rejections.map((r) => r.id),
          lazyImport: lazy?.id ?? null,
        },
        lazyImport: lazy ? { forbiddenModules: [...(lazy.policy as LazyImportRule).forbiddenModules], noConnection: (lazy.policy as LazyImportRule).noConnection } : null,
        pins: table.pins,
        rejections: table.rejections,
        profile: table.profiles[engine.name] ?? {},
        template: templateData.data,
      },
    });
  }
  return { packages, skipped, diagnostics };
}

/** The wheel-contents policies of the registry (the packaging gate). */
export function wheelRules(registry: Registry): { id: string; rule: WheelContentsRule }[] {
  return registry
    .ofKind('policy')
    .filter((p) => p.policy.rule === 'wheel-contents')
    .map((p) => ({ id: p.id, rule: p.policy as WheelContentsRule }));
}
