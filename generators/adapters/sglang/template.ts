import { diagnose, type Diagnostic } from '../../../engine/diagnostics/index.js';
import { gateSteps } from '../../rejections/index.js';
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
/** The consumed CLI flag that selects a radix cache backend (must be listed by the interface contract). */
const SELECT_FLAG = '--radix-cache-backend';
/**
 * SGLang's own server-argument parser, used (only when OrbitKV is selected) to read the facts
 * the rejections need at plugin start-up. Listed as a consumed symbol it is taken from the
 * contract; until then this is the template's default.
 */
const SERVER_ARGS = 'sglang.srt.server_args.prepare_server_args';

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
  const missing = (what: string): string => {
    diagnostics.push(diagnose('templateSymbolMissing', { contract: context.engine.id }, what));
    return '';
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
      selectFlag: consumedSymbol(context, SELECT_FLAG)?.target ?? missing(`${SELECT_FLAG} (cli-flag)`),
      serverArgs: splitDotted(consumedSymbol(context, 'prepare_server_args')?.target ?? SERVER_ARGS),
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
