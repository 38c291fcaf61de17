"""Hooks on dotted string targets.

register is a classmethod (target, hook, hook_type=HookType.AFTER, *, source=None) that only
records. apply_hooks patches each target with setattr, rewrites stale `from X import Y`
bindings, wraps a target's hooks in registration order (the later one is outer) and skips a
target it has already applied: a hook registered for it afterwards is dropped without a word.
BEFORE returns (args, kwargs) or None; AFTER receives the result first; AROUND receives the
original first; REPLACE stands in for the target.
"""

import enum
import functools
import importlib
import sys


class HookType(enum.Enum):
    BEFORE = "before"
    AFTER = "after"
    AROUND = "around"
    REPLACE = "replace"


def _resolve(target):
    parts = target.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            owner = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for name in parts[cut:-1]:
            owner = getattr(owner, name)
        return owner, parts[-1]
    raise ImportError(target)


def _wrap(original, hook, hook_type):
    if hook_type is HookType.BEFORE:
        @functools.wraps(original)
        def wrapped(*args, **kwargs):
            changed = hook(*args, **kwargs)
            if changed is not None:
                args, kwargs = changed
            return original(*args, **kwargs)
    elif hook_type is HookType.AFTER:
        @functools.wraps(original)
        def wrapped(*args, **kwargs):
            result = original(*args, **kwargs)
            changed = hook(result, *args, **kwargs)
            return result if changed is None else changed
    elif hook_type is HookType.AROUND:
        @functools.wraps(original)
        def wrapped(*args, **kwargs):
            return hook(original, *args, **kwargs)
    else:
        @functools.wraps(original)
        def wrapped(*args, **kwargs):
            return hook(*args, **kwargs)
    return wrapped


class HookRegistry:
    _pending = []
    _applied = set()

    @classmethod
    def register(cls, target, hook, hook_type=HookType.AFTER, *, source=None):
        if not isinstance(hook_type, HookType):
            raise TypeError("hook_type must be a HookType")
        cls._pending.append((target, hook, hook_type, source))

    @classmethod
    def apply_hooks(cls):
        by_target = {}
        for target, hook, hook_type, _source in cls._pending:
            by_target.setdefault(target, []).append((hook, hook_type))
        cls._pending = []
        for target, hooks in by_target.items():
            if target in cls._applied:
                continue
            owner, name = _resolve(target)
            original = getattr(owner, name)
            wrapped = original
            for hook, hook_type in hooks:
                wrapped = _wrap(wrapped, hook, hook_type)
            setattr(owner, name, wrapped)
            for module in list(sys.modules.values()):
                if module is not None and module is not owner and getattr(module, name, None) is original:
                    setattr(module, name, wrapped)
            cls._applied.add(target)
