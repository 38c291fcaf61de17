/** The guarded SGLang hook installer and the hook bodies, built from the hook contracts in `_data`. */
export const HOOKS_PY = String.raw`"""Guarded registration of the kept hook contracts with SGLang's HookRegistry.

register_all() runs in the plugin, for every active hook: the engine version matches the pin
(PEP 440), the target exists, is callable, is still the engine's own function (an ordinary functools.wraps decorator
is fine; a function defined elsewhere, or a hook the registry already holds, is not), and its
signature is compatible with the contract for the hook type. It only registers: SGLang's
load_plugins() applies every plugin's hooks once, after all plugins ran. verify_installed() runs
later (the backend factory, or the first hook call) and requires each target to be patched on
top of the original it checked, by this package's hook alone; a hook the registry dropped, or a
target someone else hooked too, is a rejection. Opt-in hooks register only when one of their
environment switches is set. Every failure is a HookRejection naming the contract, the problem,
what to do instead and the removal gate.

A hook's body follows what its target is (the template's role, never its contract id): on the
admission target (AROUND) it defers requests whose lookup is pending on any rank (lookup_gate);
on the graph-capture target (BEFORE) it installs the completion counter before capture
(completion), with no Manager call; on the enqueue target (opt-in) it starts the queued request's
lookup early (lookup_gate.warm); on the scheduler's abort target (AROUND) the linker drains the
request's restores before the original releases its pages. A hook with no role is refused when
the package is generated. Bodies are
reached as attributes of this module (PEP 562), never bound as its globals, so no contract name
can shadow a builtin or a name this module uses.
"""

import importlib
import inspect
import os

from . import _data, rejections, selection

_TEMPLATE = _data.DATA["template"]
_PRODUCT = _data.DATA["product"]["name"]
_KIND_CODES = {
    inspect.Parameter.POSITIONAL_ONLY: "po",
    inspect.Parameter.POSITIONAL_OR_KEYWORD: "pk",
    inspect.Parameter.VAR_POSITIONAL: "vp",
    inspect.Parameter.KEYWORD_ONLY: "ko",
    inspect.Parameter.VAR_KEYWORD: "vk",
}
# hook id -> (hook, original callable) of every hook this process registered.
_REGISTERED: "dict[str, tuple[dict, object]]" = {}
_VERIFIED: "dict[str, bool]" = {}


class HookRejection(rejections.AdapterRejection):
    """A hook contract could not be honoured; names the contract, the problem and the removal gate."""

    def __init__(self, hook: dict, problem: str, detail: str) -> None:
        engine = _data.DATA["engine"]
        text = (
            _PRODUCT + " hook rejection " + hook["id"] + " (" + problem + "): " + detail + " Target: " + hook["target"]
            + " (" + hook["hookType"] + "). It protects: " + hook["protects"] + " Instead: run the pinned "
            + engine["distribution"] + " " + engine["version"] + " (" + engine["contract"] + "), where this target is"
            + " contracted, or select another cache. " + rejections.gate_text(hook["gate"], "removal")
        )
        super().__init__(hook["id"], text)
        self.hook = hook["id"]
        self.problem = problem


def _params(target: object, follow: bool) -> "list[inspect.Parameter]":
    return list(inspect.signature(target, follow_wrapped=follow).parameters.values())


def fingerprint(target: object, follow_wrapped: bool = False) -> str:
    """The contract fingerprint of a callable: name:kind[=] per parameter, async prefixed."""
    params = ",".join(
        p.name + ":" + _KIND_CODES[p.kind] + ("=" if p.default is not inspect.Parameter.empty else "")
        for p in _params(target, follow_wrapped)
    )
    return ("async " if inspect.iscoroutinefunction(target) else "") + params


def _parse(fingerprint_text: str) -> "list[tuple[str, str]]":
    body = fingerprint_text[len("async "):] if fingerprint_text.startswith("async ") else fingerprint_text
    return [tuple(p.split(":", 1)) for p in body.split(",") if p]


def signature_diff(expected: str, found: str) -> str:
    """Parameter by parameter: what is missing, what is new, what changed kind or default."""
    want, have = dict(_parse(expected)), dict(_parse(found))
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


def compatible(hook_type: str, expected: str, found: str) -> bool:
    """What matters for the hook type. REPLACE stands in for the target: the whole signature must
    match. BEFORE, AFTER and AROUND pass the call through: the contract's parameters must come
    first, in order, with their kinds; the target may add parameters only with defaults (or
    *args / **kwargs), which callers may leave out."""
    if hook_type == "REPLACE":
        return expected == found
    if expected.startswith("async ") != found.startswith("async "):
        return False
    want, have = _parse(expected), _parse(found)
    if len(have) < len(want):
        return False
    for (w_name, w_kind), (h_name, h_kind) in zip(want, have):
        if w_name != h_name or w_kind.rstrip("=") != h_kind.rstrip("="):
            return False
        if w_kind.endswith("=") and not h_kind.endswith("="):
            return False
    return all(kind.endswith("=") or kind in ("vp", "vk") for _name, kind in have[len(want):])


def active(hook: dict, environ) -> bool:
    """Whether the hook is registered under this environment (always, or opt-in by a switch)."""
    activation = hook["activation"]
    if activation["mode"] == "always":
        return True
    return any(environ.get(s["env"]) == s["value"] for s in activation["switches"])


def resolve_target(dotted: str) -> "tuple[object, str, object]":
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
        return owner, parts[-1], inspect.getattr_static(owner, parts[-1]) if isinstance(owner, type) else getattr(owner, parts[-1])
    raise LookupError("no module of " + dotted + " can be imported")


def _plain(value: object) -> object:
    """The function of a static or class method descriptor, else the value."""
    return value.__func__ if isinstance(value, (staticmethod, classmethod)) else value


def _defining_file(owner: object) -> "str | None":
    module = owner if isinstance(owner, type(importlib)) else importlib.import_module(getattr(owner, "__module__", "") or "builtins")
    path = getattr(module, "__file__", None)
    return os.path.realpath(path) if path else None


def _innermost(function: object) -> object:
    seen = 0
    while getattr(function, "__wrapped__", None) is not None and seen < 64:
        function, seen = function.__wrapped__, seen + 1
    return function


def _mentions(container: object, target: str) -> bool:
    if isinstance(container, (set, frozenset)):
        return target in container
    if isinstance(container, dict):
        return target in container
    if isinstance(container, (list, tuple)):
        return any(item == target or (isinstance(item, tuple) and item and item[0] == target) for item in container)
    return False


def hooked_by_others(target: str) -> bool:
    """Whether the engine's hook registry already records this target (registered, pending or applied)."""
    try:
        spec = _TEMPLATE["hookRegistry"]
        owner = getattr(importlib.import_module(spec["module"]), spec["name"])
    except (ImportError, AttributeError):
        return False
    return any(_mentions(value, target) for value in vars(owner).values())


def check_target(hook: dict) -> object:
    """The original callable of an unregistered hook target, or a HookRejection."""
    try:
        _owner, _attribute, original = resolve_target(hook["target"])
    except (ImportError, LookupError) as error:
        raise HookRejection(hook, "target-missing", "the target does not exist: " + str(error) + ".") from None
    function = _plain(original)
    if not callable(function):
        raise HookRejection(hook, "target-not-callable", "the target is " + type(original).__name__ + ", not callable.")
    # An ordinary decorator (functools.wraps) keeps the engine's function innermost; a target
    # replaced by someone else's function is defined in another file than its owner.
    inner = _innermost(function)
    code = getattr(inner, "__code__", None)
    home = _defining_file(_owner)
    if code is not None and home is not None and os.path.realpath(code.co_filename) != home:
        raise HookRejection(hook, "target-already-patched", "the target is replaced by a function defined in " + code.co_filename + ", not in " + home + ".")
    if hooked_by_others(hook["target"]):
        raise HookRejection(hook, "target-already-patched", "the engine's hook registry already holds a hook on this target (registered by someone else, applied or not).")
    try:
        found = fingerprint(function, follow_wrapped=True)
    except (TypeError, ValueError) as error:
        raise HookRejection(hook, "signature-changed", "the target's signature cannot be read: " + str(error) + ".") from None
    if not compatible(hook["hookType"], hook["fingerprint"], found):
        raise HookRejection(
            hook, "signature-changed",
            "signature not compatible with the contract for a " + hook["hookType"] + " hook: expected (" + hook["fingerprint"] + "), found ("
            + found + "); " + signature_diff(hook["fingerprint"], found) + ".",
        )
    return original


def _registry():
    spec = _TEMPLATE["hookRegistry"]
    module = importlib.import_module(spec["module"])
    owner = getattr(module, spec["name"])
    static = inspect.getattr_static(owner, spec["method"])
    registrar = owner if isinstance(static, (classmethod, staticmethod)) else owner()
    hook_type = getattr(importlib.import_module(_TEMPLATE["hookType"]["module"]), _TEMPLATE["hookType"]["name"])
    return getattr(registrar, spec["method"]), hook_type


def register_all(environ, version: "str | None" = None) -> "list[str]":
    """Checks and registers every active hook (SGLang applies them after all plugins ran); returns their ids."""
    hooks = [h for h in _TEMPLATE["hooks"] if active(h, environ) and h["id"] not in _REGISTERED]
    if not hooks:
        return []
    engine = _data.DATA["engine"]
    found = rejections.engine_version() if version is None else version
    if not rejections.pin_matches(found, engine["version"]):
        raise HookRejection(hooks[0], "engine-version", "the engine is " + repr(found) + ", not the pinned " + engine["version"] + " (PEP 440, local part ignored).")
    originals = [(hook, check_target(hook)) for hook in hooks]
    try:
        register, hook_type = _registry()
    except (ImportError, AttributeError) as error:
        raise HookRejection(hooks[0], "hook-registry-missing", "SGLang's hook registry is not usable: " + str(error) + ".") from None
    for hook, original in originals:
        keywords = {"source": __package__} if _TEMPLATE["hookRegistry"]["passesSource"] else {}
        try:
            register(hook["target"], BODIES[hook["id"]], getattr(hook_type, hook["hookType"]), **keywords)
        except Exception as error:  # noqa: BLE001 - any refusal of the engine's registry is named
            raise HookRejection(hook, "hook-registry-refused", "HookRegistry.register refused the hook: " + repr(error) + ".") from None
        _REGISTERED[hook["id"]] = (hook, original)
    return [hook["id"] for hook, _original in originals]


def verify_installed() -> "list[str]":
    """Every registered hook is applied on top of the original it checked, and only it; returns the ids."""
    for hook_id, (hook, original) in _REGISTERED.items():
        if _VERIFIED.get(hook_id):
            continue
        _owner, _attribute, current = resolve_target(hook["target"])
        current, original_function = _plain(current), _plain(original)
        if current is original_function:
            raise HookRejection(hook, "hook-not-applied", "the target is still the original after load_plugins (the registry dropped the hook, or it was never applied).")
        inner = getattr(current, "__wrapped__", None)
        if inner is not None and inner is not original_function:
            raise HookRejection(hook, "target-shared", "another hook is applied on the same target (" + repr(inner) + " under this package's); the contract assumes this hook alone.")
        _VERIFIED[hook_id] = True
    return list(_REGISTERED)


def _body(hook: dict):
    kind = hook["hookType"]
    role = hook.get("role")

    if role == "defer-pending-lookups":
        def body(original, *args, **kwargs):
            if not selection.selected():
                return original(*args, **kwargs)
            from . import lookup_gate

            return lookup_gate.around(original, *args, **kwargs)
    elif role == "start-lookup-on-enqueue":
        def body(*args, **kwargs):
            if kind == "AROUND":
                original, args = args[0], args[1:]
                result = original(*args, **kwargs)
            else:
                result, args = args[0], args[1:]
            if selection.selected() and len(args) >= 2:
                from . import lookup_gate

                lookup_gate.warm(args[0], args[1])
            return result if kind == "AROUND" else None
    elif role == "install-completion":
        def body(*args, **kwargs):
            if selection.selected() and args:
                from . import completion

                completion.install(args[0])
            return None
    elif role == "drain-before-release":
        def body(original, *args, **kwargs):
            # (self, rid): the linker cancels rid's lookup and queued load and waits until its
            # started restores drained; only then does the original release the request's pages.
            if selection.selected() and len(args) >= 2:
                from . import linker

                live = linker.current()
                if live is not None:
                    live.drain(args[1])
            return original(*args, **kwargs)
    else:
        # Generation refuses a hook without a role (OKV5316); a hand-edited _data meets this.
        raise HookRejection(hook, "hook-without-role", "the adapter template gives no body to a " + kind + " hook on this target; regenerate the package from its contracts.")
    body.__name__ = hook["implementation"]
    body.__qualname__ = hook["implementation"]
    body.__doc__ = hook["hookType"] + " " + hook["target"] + " (" + hook["id"] + "): " + hook["protects"]
    return body


# The bodies, by hook id, and under each contract's implementation name as module attributes.
BODIES = {hook["id"]: _body(hook) for hook in _TEMPLATE["hooks"]}
_BY_NAME = {hook["implementation"]: BODIES[hook["id"]] for hook in _TEMPLATE["hooks"]}


def __getattr__(name: str):
    body = _BY_NAME.get(name)
    if body is None:
        raise AttributeError("module " + __name__ + " has no attribute " + name)
    return body
`;
