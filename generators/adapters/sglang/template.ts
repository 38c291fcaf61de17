import { diagnose, type Diagnostic } from '../../../engine/diagnostics/index.js';
import type { InterfaceContract } from '../../../engine/model/index.js';
import { gateSteps } from '../../rejections/gates.js';
import { signatureFingerprint } from '../signature.js';
import { type AdapterTemplate, type TemplateContext, type TemplateData, REGISTRY_HOOK_TYPES, consumedSymbol, splitDotted } from '../template.js';
import { HOOKS_PY } from './hooks.py.js';
import { COMPLETION_PY } from './completion.py.js';
import { LINKER_PY } from './linker.py.js';
import { LOOKUP_GATE_PY } from './lookup-gate.py.js';
import { ADMISSION_PY, BACKEND_PY, PLUGIN_PY, RECOVERY_WRAPPER_PY, STORAGE_PY } from './modules.py.js';
import { SELECTION_PY } from './selection.py.js';

/** The SGLang symbols this template builds on (engine-specific knowledge lives only here). */
const SYMBOLS = {
  register: 'HookRegistry.register',
  hookType: 'HookType',
  radixBackend: 'register_radix_cache_backend',
  linkerBase: 'UnifiedCacheLinker',
  storageBase: 'HiCacheStorage',
  treeCache: 'UnifiedRadixCache',
} as const;

/**
 * What a kept hook does, by the engine function it hooks (engine knowledge, never a contract id):
 * - AROUND `PrefillAdder.add_one_req` (SGLang's admission, which knows only the prefix match):
 *   defers a request whose lookup is still pending on any rank, all ranks together;
 * - BEFORE `TpModelWorker.init_cuda_graphs` (capture, which runs before the tree cache exists):
 *   installs the completion counter the linker later adopts, so captured graphs wait on it.
 * - AROUND or AFTER `Scheduler._add_request_to_queue` (opt-in warm-up): matches the queued request
 *   at once, as SGLang's HiCache prefetch does on enqueue, so its lookup starts early.
 * - AROUND `Scheduler._release_aborted_request` (the abort path): the linker cancels the request's
 *   lookup and queued load and waits until its started restores drained, then the original
 *   releases the request's pages (restores drain before the tree frees them).
 * The roles need the radix-backend style (the linker). A registry hook on any other target, or in
 * the HiCache storage style, has no role: generation refuses it (OKV5316), never a body that
 * fails at run time.
 */
const HOOK_ROLES: readonly { target: string; hookType: string; role: string }[] = [
  { target: 'PrefillAdder.add_one_req', hookType: 'AROUND', role: 'defer-pending-lookups' },
  { target: 'TpModelWorker.init_cuda_graphs', hookType: 'BEFORE', role: 'install-completion' },
  { target: 'Scheduler._add_request_to_queue', hookType: 'AROUND', role: 'start-lookup-on-enqueue' },
  { target: 'Scheduler._add_request_to_queue', hookType: 'AFTER', role: 'start-lookup-on-enqueue' },
  { target: 'Scheduler._release_aborted_request', hookType: 'AROUND', role: 'drain-before-release' },
];

/**
 * Where the SGLang objects the runtime modules touch live, as attribute paths (a name ending in
 * `()` is called). The CPU path: the KV pool's pages x layers x page bytes are mirrored page for
 * page by the registered shared-memory pages; the counter lives on the pool (the tree wires its
 * linker's `layer_done_counter` there). The rank and world size are the cache parameters'.
 */
const LINKER_GEOMETRY = {
  pool: 'token_to_kv_pool_allocator.get_kvcache()',
  pageSize: 'page_size',
  rank: 'tp_rank',
  worldSize: 'tp_size',
  layers: 'layer_num',
  pages: 'pages',
  pageBytes: 'page_bytes',
  kvPool: 'kv',
  lookupDeadlineMs: 2000,
} as const;
/** The admission hook's view: the tree's linker wrapper, its rank intersection, the adder's verdict, the request id. */
const LOOKUP_GATE = { treeLinker: 'tree_cache.linker', agree: '_sync_restorable_prefix', verdict: 'budget_state', requestId: 'rid' } as const;
/** The enqueue warm-up's view: the scheduler's tree cache, its linker wrapper, the request's match. */
const WARMUP = { treeCache: 'tree_cache', treeLinker: 'tree_cache.linker', match: 'init_next_round_input' } as const;
/** The completion counter: load batches whose flags stay distinct, and where the worker's KV pool is. */
const COMPLETION = { slots: 64, pool: 'model_runner.token_to_kv_pool', layers: 'layer_num' } as const;

function hookRole(target: string, hookType: string): string | null {
  return HOOK_ROLES.find((r) => (target === r.target || target.endsWith(`.${r.target}`)) && r.hookType === hookType)?.role ?? null;
}

/**
 * SGLang's integration styles, chosen by the consumed interface contracts: each style is named
 * by the anchor symbol an interface must consume.
 * - `radix-backend`: `register_radix_cache_backend` + a `UnifiedCacheLinker` subclass, selected
 *   with `--radix-cache-backend NAME`;
 * - `hicache-storage`: a `HiCacheStorage` subclass that SGLang's `dynamic` storage backend loads
 *   by module path, selected with `--hicache-storage-backend dynamic` and an extra config naming
 *   the module. (`StorageBackendFactory.register_backend` is not used: in the stored sources a
 *   registered name is built by the factory's fixed list of built-in constructors, so only
 *   `dynamic` reaches a third-party class.)
 */
const STYLES = {
  'radix-backend': { anchor: SYMBOLS.radixBackend, adapterModule: 'linker' },
  'hicache-storage': { anchor: SYMBOLS.storageBase, adapterModule: 'storage' },
} as const;
type Style = keyof typeof STYLES;

const RADIX_FLAG = '--radix-cache-backend';
const STORAGE_FLAG = '--hicache-storage-backend';
const STORAGE_CONFIG_FLAG = '--hicache-storage-backend-extra-config';
/** The storage backend name SGLang's factory loads third-party classes through. */
const DYNAMIC_BACKEND = 'dynamic';
const RECOVERY_WRAPPER = 'linker.RecoveryLinkerWrapper';

function consumes(iface: InterfaceContract, suffix: string): boolean {
  return iface.symbols.some((s) => s.target === suffix || s.target.endsWith(`.${suffix}`));
}

/** The adapter classes of one style: class name, engine base and the consumed methods of the base. */
function adapterClasses(context: TemplateContext, baseName: string, diagnostics: Diagnostic[]) {
  return context.interfaces
    .filter((i) => i.adapterClass !== undefined)
    .map((iface) => {
      const base = iface.symbols.find((s) => s.kind === 'class' && s.target.endsWith(`.${baseName}`));
      if (!base) diagnostics.push(diagnose('templateSymbolMissing', { contract: iface.id }, `*.${baseName} (class)`));
      const methods = base ? iface.symbols.filter((s) => s.kind === 'method' && s.target.startsWith(`${base.target}.`)).map((s) => splitDotted(s.target).name) : [];
      return { interface: iface.id, className: splitDotted(iface.adapterClass!).name, base: base ? splitDotted(base.target) : null, methods: methods.sort() };
    });
}

function data(context: TemplateContext): TemplateData {
  const diagnostics: Diagnostic[] = [];
  const site = { contract: context.engine.id };
  const styles = (Object.keys(STYLES) as Style[]).filter((style) => context.interfaces.some((i) => consumes(i, STYLES[style].anchor)));
  if (styles.length === 0) diagnostics.push(diagnose('noIntegrationStyle', site, context.engine.name, (Object.keys(STYLES) as Style[]).map((s) => `${s} (${STYLES[s].anchor})`).join(', ')));
  if (styles.length > 1) diagnostics.push(diagnose('integrationStylesMixed', site, context.engine.name, styles.join(', ')));
  // Without exactly one style there is nothing to check the rest against.
  if (styles.length !== 1) return { data: {}, modules: {}, provides: [], adapterModule: '', diagnostics };
  const style: Style = styles[0]!;
  const need = (suffix: string): { module: string; name: string } => {
    const found = consumedSymbol(context, suffix);
    if (!found) {
      diagnostics.push(diagnose('templateSymbolMissing', site, `*.${suffix}`));
      return { module: '', name: '' };
    }
    return splitDotted(found.target);
  };
  const flag = (name: string): string => {
    const found = consumedSymbol(context, name)?.target;
    if (!found) diagnostics.push(diagnose('templateSymbolMissing', site, `${name} (cli-flag)`));
    return found ?? name;
  };
  const installed = context.hooks.filter((h) => REGISTRY_HOOK_TYPES.includes(h.hookType) && h.signature && h.implementation);
  const hooks = installed.map((h) => ({
    id: h.id,
    target: h.target,
    hookType: h.hookType,
    fingerprint: signatureFingerprint(h.signature!),
    activation: h.activation,
    implementation: splitDotted(h.implementation!).name,
    protects: h.protects.text,
    gate: gateSteps(context.registry, [h.id]),
    role: style === 'radix-backend' ? hookRole(h.target, h.hookType) : null,
  }));
  for (const hook of hooks.filter((h) => h.role === null)) {
    const roles = HOOK_ROLES.map((r) => `${r.hookType} ${r.target}`).join(', ');
    diagnostics.push(diagnose('hookRoleMissing', { contract: hook.id, ...context.registry.locate(hook.id, ['target'], true) }, hook.hookType, hook.target, style, style === 'radix-backend' ? roles : `none in this style; radix-backend: ${roles}`));
  }
  let hookRegistry: Record<string, unknown> | null = null;
  let hookType: { module: string; name: string } | null = null;
  if (hooks.length) {
    const register = consumedSymbol(context, SYMBOLS.register);
    if (!register) diagnostics.push(diagnose('templateSymbolMissing', site, `*.${SYMBOLS.register}`));
    const owner = splitDotted(register?.target ?? '.');
    const symbol = register ? context.interfaces.find((i) => i.id === register.contract)!.symbols[register.index] : undefined;
    const passesSource = symbol?.signature?.parameters.some((p) => p.name === 'source' && p.kind === 'keyword-only') ?? false;
    hookRegistry = { ...splitDotted(owner.module), method: owner.name, passesSource };
    hookType = need(SYMBOLS.hookType);
  }
  const backendName = context.product.packagePrefix;
  const wantsWrapper = context.hooks.some((h) => h.implementation === `${context.importName}.${RECOVERY_WRAPPER}`);
  const modules: Record<string, string> = { 'plugin.py': PLUGIN_PY, 'selection.py': SELECTION_PY, 'admission.py': ADMISSION_PY, 'hooks.py': HOOKS_PY };
  if (hooks.some((h) => h.role === 'install-completion')) modules['completion.py'] = COMPLETION_PY;
  const provides: string[] = [];
  const common = { style, backendName, hookRegistry, hookType, hooks, completion: COMPLETION };
  let styleData: Record<string, unknown>;
  if (style === 'radix-backend') {
    modules['backend.py'] = BACKEND_PY;
    modules['linker.py'] = wantsWrapper ? LINKER_PY + RECOVERY_WRAPPER_PY : LINKER_PY;
    modules['completion.py'] = COMPLETION_PY;
    if (hooks.some((h) => h.role === 'defer-pending-lookups' || h.role === 'start-lookup-on-enqueue')) modules['lookup_gate.py'] = LOOKUP_GATE_PY;
    if (wantsWrapper) provides.push(RECOVERY_WRAPPER);
    styleData = {
      selectors: [{ flag: flag(RADIX_FLAG), value: backendName }],
      radixBackend: need(SYMBOLS.radixBackend),
      treeCache: need(SYMBOLS.treeCache),
      linkers: adapterClasses(context, SYMBOLS.linkerBase, diagnostics),
      linkerGeometry: LINKER_GEOMETRY,
      lookupGate: LOOKUP_GATE,
      warmup: WARMUP,
    };
  } else {
    modules['storage.py'] = STORAGE_PY;
    const storageModule = `${context.importName}.storage`;
    const storageBackends = adapterClasses(context, SYMBOLS.storageBase, diagnostics);
    // No storage method has a body over the Manager client in this template: refused here, at
    // the storage base the interface consumes, rather than a class whose methods fail at run time.
    for (const iface of context.interfaces.filter((i) => i.adapterClass !== undefined)) {
      const index = iface.symbols.findIndex((s) => s.kind === 'class' && s.target.endsWith(`.${SYMBOLS.storageBase}`));
      if (index < 0) continue;
      const base = iface.symbols[index]!.target;
      const methods = iface.symbols.filter((s) => s.kind === 'method' && s.target.startsWith(`${base}.`)).map((s) => splitDotted(s.target).name);
      diagnostics.push(diagnose('storageStyleUnimplemented', { contract: iface.id, ...context.registry.locate(iface.id, ['symbols', index], true) }, base, [...methods, 'the abstract methods of the base'].join(', ')));
    }
    styleData = {
      selectors: [
        { flag: flag(STORAGE_FLAG), value: DYNAMIC_BACKEND },
        { flag: flag(STORAGE_CONFIG_FLAG), jsonKey: 'module_path', value: storageModule },
      ],
      storageBackends,
      dynamicConfig: storageBackends.map((b) => ({ backend_name: backendName, module_path: storageModule, class_name: b.className })),
    };
  }
  return { data: { ...common, ...styleData }, modules, provides, adapterModule: STYLES[style].adapterModule, diagnostics };
}

export const sglangTemplate: AdapterTemplate = {
  hookModule: 'hooks',
  entryPoint: 'plugin:register',
  data,
};
