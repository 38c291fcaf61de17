/** The SGLang plugin, radix backend and linker modules (fixed text; data from `_data`). */

export const PLUGIN_PY = String.raw`"""SGLang plugin entry point (the engine contract's plugin group).

SGLang calls register() in every process and logs-and-ignores ordinary plugin exceptions. When
OrbitKV is not the selected radix cache backend, register() returns at once and imports nothing
heavy. When it is selected, every failure stops the process (SystemExit) with a named rejection:
the pin, the rejection contracts over the server arguments, the radix backend registration and
the guarded hook installation.
"""

import os
import sys

from . import _data


def selected(argv=None):
    """Whether the command line selects OrbitKV as the radix cache backend."""
    argv = sys.argv if argv is None else argv
    flag = _data.DATA["template"]["selectFlag"]
    name = _data.DATA["template"]["backendName"]
    for index, arg in enumerate(argv):
        if arg == flag + "=" + name:
            return True
        if arg == flag and index + 1 < len(argv) and argv[index + 1] == name:
            return True
    return False


def _stop(text):
    sys.stderr.write(text + "\n")
    raise SystemExit(text)


def register(argv=None, environ=None):
    if not selected(argv):
        return None
    from . import rejections

    environ = os.environ if environ is None else environ
    try:
        from . import backend, hooks

        rejections.check_pin()
        rejections.check(backend.live_profile(None, environ, argv))
        backend.register_backend()
        return hooks.install(environ)
    except rejections.AdapterRejection as error:
        _stop(str(error))
    except Exception as error:  # noqa: BLE001 - SGLang would log and ignore it; a selected OrbitKV must stop
        _stop(
            "OrbitKV rejection " + _data.DATA["engine"]["contract"] + ": the SGLang plugin failed while OrbitKV is the"
            + " selected backend: " + repr(error) + ". Instead: fix the cause or select another radix cache backend."
        )
`;

export const BACKEND_PY = String.raw`"""The OrbitKV radix cache backend: registration and the factory SGLang calls.

The factory runs the rejection contracts on the TreeCacheBuildContext and the server arguments
before the Manager is reached; a rejected profile stops the process (SGLang would otherwise log
and ignore the error).
"""

import importlib
import os
import sys

from . import _data, manager, rejections

_SERVER_ARGS = {}


def server_args(argv=None):
    """The engine's parsed server arguments (SGLang's own parser, once per command line)."""
    argv = tuple((sys.argv if argv is None else argv)[1:])
    if argv not in _SERVER_ARGS:
        spec = _data.DATA["template"]["serverArgs"]
        parse = getattr(importlib.import_module(spec["module"]), spec["name"])
        _SERVER_ARGS[argv] = parse(list(argv))
    return _SERVER_ARGS[argv]


def live_profile(context, environ=None, argv=None):
    """The rejection checks' profile: the build context (when there is one) and the server arguments."""
    return {
        "engine": _data.DATA["engine"]["name"],
        "version": rejections.engine_version(),
        "env": dict(os.environ if environ is None else environ),
        "config": {"tree_cache_build_context": context, "server_args": server_args(argv)},
    }


def factory(context):
    try:
        rejections.check(live_profile(context))
        half = manager.connect("tree cache")
    except (rejections.AdapterRejection, manager.ManagerNotReachable) as error:
        sys.stderr.write(str(error) + "\n")
        raise SystemExit(str(error)) from error
    return half.call("build_tree_cache", (context,), {})


def register_backend():
    spec = _data.DATA["template"]["radixBackend"]
    register = getattr(importlib.import_module(spec["module"]), spec["name"])
    register(_data.DATA["template"]["backendName"], factory)
`;

export const LINKER_PY = String.raw`"""OrbitKV's Unified cache linker and the recovery wrapper.

The linker classes subclass SGLang's UnifiedCacheLinker and are built on first access (PEP 562),
so importing this module imports nothing from SGLang. Every consumed linker method delegates to
the Manager, which owns restore correctness.
"""

import importlib

from . import _data, manager

_LINKERS = {spec["className"]: spec for spec in _data.DATA["template"]["linkers"]}


def _linker_class(spec):
    base = getattr(importlib.import_module(spec["base"]["module"]), spec["base"]["name"])

    def __init__(self, *args, **kwargs):
        base.__init__(self, *args, **kwargs)
        self._orbitkv_half = manager.connect("linker")

    return manager.delegating_class(spec["className"], base, spec["methods"], __name__, {"__init__": __init__})


def __getattr__(name):
    spec = _LINKERS.get(name)
    if spec is None or spec["base"] is None:
        raise AttributeError("module " + __name__ + " has no attribute " + name)
    cls = _linker_class(spec)
    globals()[name] = cls
    return cls


class RecoveryLinkerWrapper:
    """Wraps the linker the Unified tree receives: the consumed linker methods go through the
    Manager (destination locks held until restores drain, checkpoint release under abort and
    preemption); every other attribute reaches the wrapped linker."""

    def __init__(self, inner):
        self._inner = inner
        self._methods = {m for spec in _LINKERS.values() for m in spec["methods"]}
        self._orbitkv_half = manager.connect("recovery")

    def __getattr__(self, name):
        if name in self.__dict__.get("_methods", ()):
            half = self._orbitkv_half
            return lambda *args, **kwargs: half.call(name, args, kwargs)
        return getattr(self.__dict__["_inner"], name)
`;
