/** The SGLang plugin, admission, radix backend, linker and HiCache storage modules (fixed text; data from `_data`). */

export const PLUGIN_PY = String.raw`"""SGLang plugin entry point (the engine contract's plugin group).

SGLang calls register() in every process and logs-and-ignores ordinary plugin exceptions. The
command line is never re-parsed (see selection). When it selects another cache, or does not
say (the Engine API without the selection switch), register() returns at once and imports
nothing heavy. When the product is selected, the engine pin is checked, the radix backend is
registered (radix style) and the active hooks are
registered; SGLang's load_plugins() applies them after every plugin ran, and the backend factory
verifies them. Every failure then stops the process once, with a named rejection.
"""

import os

from . import _data, selection


def register(argv: "list[str] | None" = None, environ: "dict | None" = None) -> "list[str] | None":
    choice = selection.selection() if argv is None and environ is None else selection.decide(argv, environ)
    if choice == "other":
        return None
    from . import rejections, stop

    environ = os.environ if environ is None else environ
    if choice is None:
        return None
    try:
        rejections.check_pin()
        if _data.DATA["template"]["style"] == "radix-backend":
            from . import backend

            backend.register_backend()
        from . import hooks

        return hooks.register_all(environ)
    except rejections.AdapterRejection as error:
        stop.stop(str(error), error)
    except SystemExit as error:
        # A bare usage error (a strict parser met 'sglang serve') would never name the product.
        stop.stop(stop.failure_text("SGLang plugin (SystemExit " + repr(error.code) + ")", error), error)
    except Exception as error:  # noqa: BLE001 - SGLang would log and ignore it; a selected adapter must stop
        stop.stop(stop.failure_text("SGLang plugin", error), error)
    return None
`;

export const ADMISSION_PY = String.raw`"""Admission: nothing reaches the Manager before every rejection contract has been evaluated.

Some rejections read facts that exist only once the engine hands them over (the tree-cache build
context, the live server arguments). No hook body calls the Manager before that: the graph-capture
hook installs the completion counter without it, and the others reach the Manager through the
linker, which the tree cache builds only after admit().
"""

from . import rejections

_STATE: "dict[str, object]" = {"admitted": False, "verdict": None}


def admitted() -> bool:
    return bool(_STATE["admitted"])


def admit(profile: dict) -> dict:
    """Evaluates every rejection on the live profile (ProfileRejected unless accepted), then lets the halves handshake with it."""
    verdict = rejections.check(profile)
    from . import manager

    # Every half handshakes with the admitted live profile (the Manager decides it again).
    manager.use_profile(profile)
    _STATE["admitted"] = True
    _STATE["verdict"] = verdict
    return verdict
`;

export const BACKEND_PY = String.raw`"""The radix cache backend: registration and the factory SGLang calls with a TreeCacheBuildContext.

The factory is where the live profile is complete: the build context and its server_args (the
parsed arguments, whether they came from the command line, a --config file or the Engine API).
It verifies the hooks load_plugins() applied, evaluates every rejection, admits the profile and
only then builds the engine's Unified tree with this package's linker attached
(init_cache_linker), whose construction reaches the Manager. A rejected profile stops the
process once.
"""

import importlib

from . import _data, admission, manager, rejections, stop

_REGISTERED: "dict[str, bool]" = {}


def live_profile(context: object, environ: "dict | None" = None) -> dict:
    """The rejection checks' profile: the build context and the live server arguments it carries."""
    return rejections.live_profile({"tree_cache_build_context": context, "server_args": getattr(context, "server_args", None)}, environ)


def _tree_cache(context: object) -> object:
    """The engine's own Unified tree over the cache parameters, with this package's linker attached."""
    from . import linker

    spec = _data.DATA["template"]["treeCache"]
    tree_class = getattr(importlib.import_module(spec["module"]), spec["name"])
    params = getattr(context, "params", None)
    cache = tree_class(params)
    linker_class = getattr(linker, _data.DATA["template"]["linkers"][0]["className"])
    cache.init_cache_linker(linker_class(context.server_args, params, components=getattr(cache, "tree_components", None)))
    return cache


def factory(context: object) -> object:
    try:
        from . import hooks

        # Both before any connection: the hooks load_plugins() applied, then every rejection.
        hooks.verify_installed()
        admission.admit(live_profile(context))
        return _tree_cache(context)
    except (rejections.AdapterRejection, manager.ManagerNotReachable) as error:
        stop.stop(str(error), error)
    except Exception as error:  # noqa: BLE001 - SGLang would log and ignore it
        stop.stop(stop.failure_text("radix cache factory", error), error)


def register_backend() -> None:
    """Registers the backend name once per process (SGLang refuses a second registration)."""
    if _REGISTERED:
        return
    spec = _data.DATA["template"]["radixBackend"]
    register = getattr(importlib.import_module(spec["module"]), spec["name"])
    register(_data.DATA["template"]["backendName"], factory)
    _REGISTERED["done"] = True
`;

/** Appended to the linker module only when a kept wrapper hook names it. */
export const RECOVERY_WRAPPER_PY = String.raw`

class RecoveryLinkerWrapper:
    """Wraps the linker the Unified tree receives and keeps restore correctness here: every
    attribute reaches the wrapped linker, whose restores hold their destination pages until they
    drained (a batch completes only then) and whose cancel and release give the Manager's leases
    back. abort(rid) and preempt(rid) are the abort and preemption paths: the request's lookup and
    queued load are cancelled and its started restores drained before the caller frees its pages."""

    def __init__(self, inner: object) -> None:
        self._inner = inner

    def abort(self, rid) -> None:
        self._inner.drain(rid)

    def preempt(self, rid) -> None:
        self._inner.drain(rid)

    def __getattr__(self, name: str):
        return getattr(self.__dict__["_inner"], name)
`;

export const STORAGE_PY = String.raw`"""HiCache storage backend classes, loaded by SGLang's 'dynamic' storage backend.

SGLang builds a dynamic backend from --hicache-storage-backend dynamic and an extra config naming
backend_name, module_path (this module) and class_name; it imports the class, requires a
subclass of HiCacheStorage and calls cls(storage_config, kwargs). The classes are built on first
access (PEP 562), so importing this module imports nothing from SGLang. The constructor
evaluates every rejection on the live storage config first, then connects. The template has no
storage method bodies over the client: generation refuses this style (OKV5317), so no package
ships this module.
"""

import importlib

from . import _data, admission, manager, rejections, stop

_BACKENDS = {spec["className"]: spec for spec in _data.DATA["template"]["storageBackends"]}


def live_profile(storage_config: object, extra: object, environ: "dict | None" = None) -> dict:
    return rejections.live_profile({"storage_config": storage_config, "storage_kwargs": extra}, environ)


def _storage_class(spec: dict) -> type:
    base = getattr(importlib.import_module(spec["base"]["module"]), spec["base"]["name"])

    def __init__(self, storage_config, kwargs=None):
        try:
            admission.admit(live_profile(storage_config, kwargs))
            self._adapter_half = manager.connect("storage")
        except (rejections.AdapterRejection, manager.ManagerNotReachable) as error:
            stop.stop(str(error), error)
        self.storage_config = storage_config

    return type(base)(spec["className"], (base,), {"__init__": __init__, "__module__": __name__})


def __getattr__(name: str):
    spec = _BACKENDS.get(name)
    if spec is None:
        raise AttributeError("module " + __name__ + " has no attribute " + name)
    cls = _storage_class(spec)
    globals()[name] = cls
    return cls
`;
