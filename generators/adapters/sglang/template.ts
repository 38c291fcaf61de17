import { diagnose, type Diagnostic } from '../../../engine/diagnostics/index.js';
import { gateSteps } from '../../rejections/plan.js';
import { signatureFingerprint } from '../signature.js';
import { type AdapterTemplate, type TemplateContext, type TemplateData, REGISTRY_HOOK_TYPES, consumedSymbol, splitDotted } from '../template.js';
import { HOOKS_PY } from './hooks.py.js';
import { BACKEND_PY, LINKER_PY, PLUGIN_PY } from './modules.py.js';


/** The SGLang symbols this template builds on (engine-specific knowledge lives only here). */
const SYMBOLS = {
  register: 'HookRegistry.register',
  hookType: 'HookType',
  radixBackend: 'register_radix_cache_backend',
  linkerBase: 'UnifiedCacheLinker',
} as const;
/** How the radix cache backend is selected on the command line, and how server args are parsed. */
const SELECT_FLAG = '--radix-cache-backend';
const SERVER_ARGS = { module: 'sglang.srt.server_args', name: 'prepare_server_args' };

function data(context: TemplateContext): TemplateData {
  const diagnostics: Diagnostic[] = [];
  const need = (suffix: string): { module: string; name: string } => {
    const found = consumedSymbol(context, suffix);
    if (!found) {
      diagnostics.push(diagnose('templateSymbolMissing', { contract: context.engine.id }, `*.${suffix}`));
      return { module: '', name: '' };
    }
    return splitDotted(found.target);
  };
  const register = need(SYMBOLS.register);
  const linkers = context.interfaces
    .filter((i) => i.adapterClass !== undefined)
    .map((iface) => {
      const base = iface.symbols.find((s) => s.kind === 'class' && s.target.endsWith(`.${SYMBOLS.linkerBase}`));
      if (!base) diagnostics.push(diagnose('templateSymbolMissing', { contract: iface.id }, `*.${SYMBOLS.linkerBase} (class)`));
      const methods = base ? iface.symbols.filter((s) => s.kind === 'method' && s.target.startsWith(`${base.target}.`)).map((s) => splitDotted(s.target).name) : [];
      return { interface: iface.id, className: splitDotted(iface.adapterClass!).name, base: base ? splitDotted(base.target) : null, methods: methods.sort() };
    });
  const hooks = context.hooks
    .filter((h) => REGISTRY_HOOK_TYPES.includes(h.hookType) && h.signature && h.implementation)
    .map((h) => ({
      id: h.id,
      target: h.target,
      hookType: h.hookType,
      fingerprint: signatureFingerprint(h.signature!),
      activation: h.activation,
      implementation: splitDotted(h.implementation!).name,
      protects: h.protects.text,
      gate: gateSteps(context.registry, [h.id]),
    }));
  return {
    data: {
      backendName: context.product,
      selectFlag: SELECT_FLAG,
      serverArgs: SERVER_ARGS,
      hookRegistry: { ...splitDotted(register.module), method: register.name },
      hookType: need(SYMBOLS.hookType),
      radixBackend: need(SYMBOLS.radixBackend),
      linkers,
      hooks,
    },
    diagnostics,
  };
}

export const sglangTemplate: AdapterTemplate = {
  adapterModule: 'linker',
  provides: ['linker.RecoveryLinkerWrapper'],
  hookModule: 'hooks',
  entryPoint: 'plugin:register',
  data,
  modules: { 'plugin.py': PLUGIN_PY, 'hooks.py': HOOKS_PY, 'backend.py': BACKEND_PY, 'linker.py': LINKER_PY },
};
