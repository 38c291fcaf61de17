/** The guarded SGLang hook installer and the hook bodies, built from the hook contracts in `_data`. */
export const HOOKS_PY = String.raw`"""Guarded installation of the kept hook contracts through SGLang's HookRegistry.

Before installing, for every active hook: the engine version matches the pin, the target
exists, is callable, is not already patched by someone else (no __wrapped__), and its signature
fingerprint matches the contract. After apply_hooks(), every target must show as patched (a
different object than the original); a hook the registry silently dropped is a rejection.
Opt-in hooks install only when one of their environment switches is set. Every failure is a
HookRejection naming the hook contract, the problem, what to do instead and the removal gate.
"""

import importlib
import inspect

from . import _data, manager, rejections

_TEMPLATE = _data.DATA["template"]
_KIND_CODES = {
    inspect.Parameter.POSITIONAL_ONLY: "po",
    inspect.Parameter.POSITIONAL_OR_KEYWORD: "pk",
    inspect.Parameter.VAR_POSITIONAL: "vp",
    inspect.Parameter.KEYWORD_ONLY: "ko",
    inspect.Parameter.VAR_KEYWORD: "vk",
}


class HookRejection(rejections.AdapterRejection):
    """A hook contract could not be honoured; names the contract, the problem and the removal gate."""

    def __init__(self, hook, problem, detail):
        engine = _data.DATA["engine"]
        text = (
            "OrbitKV hook rejection " + hook["id"] + " (" + problem + "): " + detail + " Target: " + hook["target"]
            + " (" + hook["hookType"] + "). It protects: " + hook["protects"] + " Instead: run the pinned "
            + engine["distribution"] + " " + engine["version"] + " (" + engine["contract"] + "), where this target is"
            + " contracted, or select another radix cache backend. " + rejections.gate_text(hook["gate"], "removal")
        )
        super().__init__(hook["id"], text)
        self.hook = hook["id"]
        self.problem = problem


def fingerprint(target):
    """The contract fingerprint of a callable: name:kind[=] per parameter, async prefixed."""
    signature = inspect.signature(target, follow_wrapped=False)
    params = ",".join(
        p.name + ":" + _KIND_CODES[p.kind] + ("=" if p.default is not inspect.Parameter.empty else "")
        for p in signature.parameters.values()
    )
    return ("async " if inspect.iscoroutinefunction(target) else "") + params


def signature_diff(expected, found):
    """Parameter by parameter: what is missing, what is new, what changed kind or default."""

    def params(fingerprint):
        body = fingerprint[len("async "):] if fingerprint.startswith("async ") else fingerprint
        return dict(p.split(":", 1) for p in body.split(",") if p)

    want, have = params(expected), params(found)
    parts = []
    missing = [n for n in want if n not in have]
    added = [n for n in have if n not in want]
    changed = [n + " " + want[n] + " -> " + have[n] for n in want if n in have and want[n] != have[n]]
    if missing:
        parts.append("missing " + ", ".join(missing))
    if added:
        parts.append("new " + ", ".join(added))
    if changed:
        parts.append("changed " + ", ".join(changed))
    if not parts and list(want) != list(have):
        parts.append("reordered")
    if expected.startswith("async ") != found.startswith("async "):
        parts.append("async differs")
    return "; ".join(parts) or "differs"


def active(hook, environ):
    """Whether the hook is installed under this environment (always, or opt-in by a switch)."""
    activation = hook["activation"]
    if activation["mode"] == "always":
        return True
    return any(environ.get(s["env"]) == s["value"] for s in activation["switches"])


def resolve_target(dotted):
    """(owner, attribute, value) of a dotted target: the longest importable module, then attributes."""
    parts = dotted.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        name = ".".join(parts[:cut])
        try:
            owner = importlib.import_module(name)
        except ModuleNotFoundError as error:
            if error.name is not None and (name == error.name or name.startswith(error.name + ".")):
                continue
            raise
        for attribute in parts[cut:-1]:
            if not hasattr(owner, attribute):
                raise LookupError(name + " has no attribute path " + ".".join(parts[cut:]))
            owner = getattr(owner, attribute)
        if not hasattr(owner, parts[-1]):
            raise LookupError(".".join(parts[:-1]) + " has no attribute " + parts[-1])
        return owner, parts[-1], getattr(owner, parts[-1])
    raise LookupError("no module of " + dotted + " can be imported")


def _registry():
    spec = _TEMPLATE["hookRegistry"]
    module = importlib.import_module(spec["module"])
    owner = getattr(module, spec["name"])
    static = inspect.getattr_static(owner, spec["method"])
    registrar = owner if isinstance(static, (classmethod, staticmethod)) else owner()
    apply = getattr(registrar, "apply_hooks", None) or getattr(module, "apply_hooks")
    hook_type = getattr(importlib.import_module(_TEMPLATE["hookType"]["module"]), _TEMPLATE["hookType"]["name"])
    return getattr(registrar, spec["method"]), apply, hook_type


def _selected():
    from .plugin import selected

    return selected()


def _body(hook):
    kind = hook["hookType"]

    def half():
        return manager.connect("hook " + hook["id"])

    if kind == "BEFORE":
        def body(*args, **kwargs):
            if not _selected():
                return None
            return half().call("before", args, kwargs)
    elif kind == "AROUND":
        def body(original, *args, **kwargs):
            if not _selected():
                return original(*args, **kwargs)
            return half().call("around", (original,) + args, kwargs)
    elif kind == "AFTER":
        def body(result, *args, **kwargs):
            if not _selected():
                return result
            return half().call("after", (result,) + args, kwargs)
    else:
        def body(*args, **kwargs):
            return half().call("replace", args, kwargs)
    body.__name__ = hook["implementation"]
    body.__qualname__ = hook["implementation"]
    body.__doc__ = hook["hookType"] + " " + hook["target"] + " (" + hook["id"] + "): " + hook["protects"]
    return body


def check_target(hook):
    """The original callable of an uninstalled hook target, or a HookRejection."""
    try:
        _owner, _attribute, original = resolve_target(hook["target"])
    except (ImportError, LookupError) as error:
        raise HookRejection(hook, "target-missing", "the target does not exist: " + str(error) + ".") from None
    if not callable(original):
        raise HookRejection(hook, "target-not-callable", "the target is " + type(original).__name__ + ", not callable.")
    if getattr(original, "__wrapped__", None) is not None:
        raise HookRejection(hook, "target-already-patched", "the target is already patched by someone else (" + repr(original.__wrapped__) + ").")
    try:
        found = fingerprint(original)
    except (TypeError, ValueError) as error:
        raise HookRejection(hook, "signature-changed", "the target's signature cannot be read: " + str(error) + ".") from None
    if found != hook["fingerprint"]:
        raise HookRejection(
            hook, "signature-changed",
            "signature fingerprint differs: expected (" + hook["fingerprint"] + "), found (" + found + "); " + signature_diff(hook["fingerprint"], found) + ".",
        )
    return original


def install(environ, version=None):
    """Checks, registers and applies every active hook; returns the installed hook ids."""
    hooks = [h for h in _TEMPLATE["hooks"] if active(h, environ)]
    if not hooks:
        return []
    engine = _data.DATA["engine"]
    found = rejections.engine_version() if version is None else version
    if found != engine["version"]:
        raise HookRejection(hooks[0], "engine-version", "the engine is " + repr(found) + ", not the pinned " + engine["version"] + ".")
    originals = [(hook, check_target(hook)) for hook in hooks]
    try:
        register, apply, hook_type = _registry()
    except (ImportError, AttributeError) as error:
        raise HookRejection(hooks[0], "hook-registry-missing", "SGLang's hook registry is not usable: " + str(error) + ".") from None
    for hook, _original in originals:
        try:
            register(hook["target"], BODIES[hook["id"]], getattr(hook_type, hook["hookType"]))
        except Exception as error:  # noqa: BLE001 - any refusal of the engine's registry is named
            raise HookRejection(hook, "hook-registry-refused", "HookRegistry.register refused the hook: " + repr(error) + ".") from None
    try:
        apply()
    except Exception as error:  # noqa: BLE001
        raise HookRejection(originals[0][0], "apply-failed", "apply_hooks() failed: " + repr(error) + ".") from None
    for hook, original in originals:
        _owner, _attribute, current = resolve_target(hook["target"])
        if current is original:
            raise HookRejection(hook, "hook-not-applied", "apply_hooks() left the target unpatched (the registry dropped the hook).")
    return [hook["id"] for hook, _original in originals]


# The bodies, by hook id, and under each contract's implementation name (the generator refuses
# names this module already defines).
BODIES = {hook["id"]: _body(hook) for hook in _TEMPLATE["hooks"]}
for _hook in _TEMPLATE["hooks"]:
    globals()[_hook["implementation"]] = BODIES[_hook["id"]]
`;
