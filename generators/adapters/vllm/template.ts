import { diagnose, type Diagnostic } from '../../../engine/diagnostics/index.js';
import type { ProfileRules } from '../../rejections/profile.js';
import { type AdapterTemplate, type TemplateContext, type TemplateData, consumedSymbol, splitDotted } from '../template.js';
import { CONNECTOR_PY, IMPLEMENTED_METHODS, KV_LAYOUT_PY, SCHEDULER_HALF_PY, WORKER_HALF_PY } from './python/index.js';

/** The vLLM symbols this template builds on (engine-specific knowledge lives only here). */
const BASE_CLASS = 'KVConnectorBase_V1';
const REGISTER = 'KVConnectorFactory.register_connector';
/** The released terminal-result type get_transfer_results returns, when the contracts consume it. */
const TRANSFER_RESULTS = 'KVConnectorTransferResults';
/**
 * How vLLM reads what the rejections look at, so preflight and the live connector agree: config
 * paths whose first segment is not a profile root are attributes of `vllm_config` (the engine
 * hands the connector `vllm_config` and `kv_cache_config`); `VLLM_ALLOW_RUNTIME_LORA_UPDATING` is
 * read as `value.strip().lower()` (vllm/envs.py).
 */
const PROFILE_RULES: ProfileRules = {
  fallbackRoot: 'vllm_config',
  envParsing: { VLLM_ALLOW_RUNTIME_LORA_UPDATING: 'strip-lower' },
};

function data(context: TemplateContext): TemplateData {
  const diagnostics: Diagnostic[] = [];
  const connectors: Record<string, unknown>[] = [];
  for (const iface of context.interfaces) {
    if (iface.adapterClass === undefined) continue;
    const base = iface.symbols.find((s) => s.kind === 'class' && s.target.endsWith(`.${BASE_CLASS}`));
    if (!base) {
      diagnostics.push(diagnose('templateSymbolMissing', { contract: iface.id, ...context.registry.locate(iface.id, ['symbols'], true) }, `*.${BASE_CLASS} (class)`));
      continue;
    }
    const members = iface.symbols.filter((s) => s.target.startsWith(`${base.target}.`) && !s.target.slice(base.target.length + 1).includes('.'));
    const methods = members.filter((s) => s.kind === 'method').map((s) => splitDotted(s.target).name).sort();
    for (const method of methods.filter((m) => !IMPLEMENTED_METHODS.includes(m))) {
      const index = iface.symbols.findIndex((s) => s.target === `${base.target}.${method}`);
      diagnostics.push(diagnose('templateMethodUnimplemented', { contract: iface.id, ...context.registry.locate(iface.id, ['symbols', index], true) }, method, base.target));
    }
    const results = iface.symbols.find((s) => s.kind === 'class' && s.target.endsWith(`.${TRANSFER_RESULTS}`));
    connectors.push({
      interface: iface.id,
      className: splitDotted(iface.adapterClass).name,
      base: splitDotted(base.target),
      methods,
      ...(results ? { transferResults: splitDotted(results.target) } : {}),
      requiresKvDelivery: iface.delivery.mode === 'required',
    });
  }
  const register = consumedSymbol(context, REGISTER);
  if (!register) diagnostics.push(diagnose('templateSymbolMissing', { contract: context.engine.id }, `*.${REGISTER} (method)`));
  const factory = register ? splitDotted(register.target) : { module: '', name: '' };
  return {
    data: { connectors, factory: { ...splitDotted(factory.module), method: factory.name } },
    modules: { 'plugin.py': PLUGIN_PY, 'connector.py': CONNECTOR_PY, 'kv_layout.py': KV_LAYOUT_PY, 'scheduler_half.py': SCHEDULER_HALF_PY, 'worker_half.py': WORKER_HALF_PY },
    provides: [],
    adapterModule: 'connector',
    diagnostics,
  };
}

const PLUGIN_PY = String.raw`"""vLLM plugin entry point (the engine contract's plugin group).

Called by vLLM in every process. When no connector of this package is named on the command
line (decided once per process) it returns at once and imports nothing. When one is, the
engine version must match the pin (PEP 440, local part ignored) and the connector is registered
with vLLM's connector factory; the connector itself runs the rejection checks in its
constructor, before any Manager connection. A failure stops the process once, with its name.
"""

import importlib
import sys

from . import _data

_DECIDED: "dict[str, bool]" = {}


def selected(argv: "list[str] | None" = None) -> bool:
    """Whether the command line names a connector of this package (its class name in --kv-transfer-config)."""
    if argv is None:
        if "selected" not in _DECIDED:
            _DECIDED["selected"] = selected(sys.argv)
        return _DECIDED["selected"]
    names = [c["className"] for c in _data.DATA["template"]["connectors"]]
    return any(name in arg for arg in argv for name in names)


def register(argv: "list[str] | None" = None) -> "list[str] | None":
    if not selected(argv):
        return None
    from . import rejections, stop

    try:
        rejections.check_pin()
        factory = _data.DATA["template"]["factory"]
        owner = getattr(importlib.import_module(factory["module"]), factory["name"])
        for connector in _data.DATA["template"]["connectors"]:
            getattr(owner, factory["method"])(connector["className"], __package__ + ".connector", connector["className"])
    except rejections.AdapterRejection as error:
        stop.stop(str(error), error)
    except Exception as error:  # noqa: BLE001 - vLLM would log and ignore it; a selected adapter must stop
        stop.stop(stop.failure_text("vLLM plugin", error), error)
    return [c["className"] for c in _data.DATA["template"]["connectors"]]
`;

export const vllmTemplate: AdapterTemplate = {
  entryPoint: 'plugin:register',
  profile: PROFILE_RULES,
  data,
};
