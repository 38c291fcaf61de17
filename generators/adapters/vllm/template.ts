import { diagnose, type Diagnostic } from '../../../engine/diagnostics/index.js';
import { type AdapterTemplate, type TemplateContext, type TemplateData, consumedSymbol, splitDotted } from '../template.js';

/** The vLLM symbols this template builds on (engine-specific knowledge lives only here). */
const BASE_CLASS = 'KVConnectorBase_V1';
const REGISTER = 'KVConnectorFactory.register_connector';

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
    connectors.push({
      interface: iface.id,
      className: splitDotted(iface.adapterClass).name,
      base: splitDotted(base.target),
      methods: members.filter((s) => s.kind === 'method').map((s) => splitDotted(s.target).name).sort(),
      requiresKvDelivery: iface.delivery.mode === 'required',
    });
  }
  const register = consumedSymbol(context, REGISTER);
  if (!register) diagnostics.push(diagnose('templateSymbolMissing', { contract: context.engine.id }, `*.${REGISTER} (method)`));
  const factory = register ? splitDotted(register.target) : { module: '', name: '' };
  return {
    data: { connectors, factory: { ...splitDotted(factory.module), method: factory.name } },
    diagnostics,
  };
}

const PLUGIN_PY = String.raw`"""vLLM plugin entry point (the engine contract's plugin group).

Called by vLLM in every process. When OrbitKV is not the selected connector it returns at once
and imports nothing. When it is selected, the engine version must match the pin and the
connector is registered with vLLM's connector factory; the connector itself runs the rejection
checks in its constructor, before any Manager connection.
"""

import importlib
import sys

from . import _data


def selected(argv=None):
    """Whether the command line selects an OrbitKV connector (its class name in --kv-transfer-config)."""
    argv = sys.argv if argv is None else argv
    names = [c["className"] for c in _data.DATA["template"]["connectors"]]
    return any(name in arg for arg in argv for name in names)


def register(argv=None):
    if not selected(argv):
        return None
    from . import rejections

    try:
        rejections.check_pin()
        factory = _data.DATA["template"]["factory"]
        owner = getattr(importlib.import_module(factory["module"]), factory["name"])
        for connector in _data.DATA["template"]["connectors"]:
            getattr(owner, factory["method"])(connector["className"], __package__ + ".connector", connector["className"])
    except rejections.AdapterRejection as error:
        sys.stderr.write(str(error) + "\n")
        raise SystemExit(str(error)) from error
    return [c["className"] for c in _data.DATA["template"]["connectors"]]
`;

const CONNECTOR_PY = String.raw`"""The OrbitKV vLLM connector: KVConnectorBase_V1 with scheduler and worker halves.

Imported by vLLM only when OrbitKV is the selected connector (it imports vLLM, and so torch).
The constructor evaluates the rejection contracts on the live engine's attributes first: a
rejected profile raises before any connection is opened. Then the role's half connects to the
Manager; every consumed method delegates to it.
"""

import importlib
import os
from collections.abc import Mapping

from . import _data, manager, rejections


class LiveConfig(Mapping):
    """Config roots of a live engine: named objects, then attributes of vllm_config."""

    def __init__(self, named, fallback):
        self._named = {k: v for k, v in named.items() if v is not None}
        self._fallback = fallback

    def __getitem__(self, key):
        if key in self._named:
            return self._named[key]
        value = getattr(self._fallback, key, None)
        if value is None:
            raise KeyError(key)
        return value

    def __iter__(self):
        return iter(self._named)

    def __len__(self):
        return len(self._named)


def live_profile(vllm_config, kv_cache_config, environ=None):
    """The rejection checks' profile, read from the objects vLLM hands the connector."""
    return {
        "engine": _data.DATA["engine"]["name"],
        "version": rejections.engine_version(),
        "env": dict(os.environ if environ is None else environ),
        "config": LiveConfig({"vllm_config": vllm_config, "kv_cache_config": kv_cache_config}, vllm_config),
    }


def _role_name(role):
    return str(getattr(role, "name", role)).lower()


def _connector_class(spec):
    base = getattr(importlib.import_module(spec["base"]["module"]), spec["base"]["name"])

    def __init__(self, vllm_config, role, kv_cache_config=None):
        # Rejections first: a rejected profile never opens a connection.
        self._orbitkv_verdict = rejections.check(live_profile(vllm_config, kv_cache_config))
        base.__init__(self, vllm_config, role, kv_cache_config)
        self._orbitkv_role = _role_name(role)
        self._orbitkv_half = manager.connect(self._orbitkv_role)

    requires = spec["requiresKvDelivery"]
    namespace = {"__init__": __init__, "requires_kv_delivery": property(lambda self: requires)}
    return manager.delegating_class(spec["className"], base, spec["methods"], __name__, namespace)


for _spec in _data.DATA["template"]["connectors"]:
    globals()[_spec["className"]] = _connector_class(_spec)
`;

export const vllmTemplate: AdapterTemplate = {
  adapterModule: 'connector',
  provides: [],
  entryPoint: 'plugin:register',
  data,
  modules: { 'plugin.py': PLUGIN_PY, 'connector.py': CONNECTOR_PY },
};
