/**
 * The Python side of the rejection checks: one fixed module that reads its data from the
 * package's `_data` module. Its semantics match `typescript.ts` line by line; the shared
 * vectors in `spec/vectors/` prove it.
 */
export const REJECTIONS_PY = String.raw`"""Rejection checks, generated from the rejection contracts; do not edit.

The profile is {"engine", "version", "env": {NAME: str}, "config": {root: ...}}. Predicate
semantics, identical to the TypeScript module the Manager runs at handshake:

- A fact is an environment variable (a string), a config path or the engine version. Config
  paths are dotted and resolve through nested mappings (a profile file) and through attributes
  (live engine objects) with one resolver. A fact that does not resolve, or resolves to None,
  is absent. When the adapter names a fallback root (vLLM: vllm_config), a first segment that is
  not a root of the profile is looked up under that root, in a profile file and live alike.
- An environment variable the engine reads in a normalised way (the adapter's envParsing, e.g.
  strip-lower) is normalised the same way before it is compared.
- The engine pin matches by PEP 440 version equality with the local part ignored
  (0.5.21+cu128 is 0.5.21; 0.5.21.0 is 0.5.21; 0.5.21rc1 is not).
- equals / not-equals compare strictly: the same type class (bool, number, string) and value.
  An absent fact is not equal, so not-equals holds on an absent fact.
- in / not-in: strict membership in values; not-in holds on an absent fact.
- present / absent: the fact resolves to a non-None value.
- truthy: present and not False, 0, "", an empty list or an empty mapping.
- count-greater-than: the fact is a list or mapping with more than value entries.
- version-less-than / version-at-least: PEP 440 order (epoch, release with trailing zeros
  ignored, pre-release a < b < rc, post, dev, then the local part; a "v" prefix and the
  alternative spellings are accepted); a side that is not a PEP 440 version does not hold.
- all holds when every part holds (empty: holds); any when one part holds (empty: does not); not.
"""

import os
import re
from collections.abc import Mapping

from . import _data

_PRODUCT = (_data.DATA.get("product") or {}).get("name", "adapter")
_PROFILE_RULES = _data.DATA.get("profile") or {}

_ABSENT = object()
_SCALARS = (list, tuple, str, bytes, int, float, bool)


class AdapterRejection(Exception):
    """A named rejection: names the contract, what is unsupported, what to select instead and its gate."""

    def __init__(self, contract, text):
        super().__init__(text)
        self.contract = contract


class ProfileRejected(AdapterRejection):
    """The engine profile matched one or more rejection contracts, or the engine is not the pinned version."""

    def __init__(self, verdict):
        super().__init__(_contracts(verdict), describe_verdict(verdict))
        self.verdict = verdict


def _contracts(verdict):
    ids = [entry["id"] for entry in verdict["rejections"]]
    pin = verdict.get("pin")
    if pin is not None and not pin["matches"]:
        ids.insert(0, pin["contract"])
    return ", ".join(ids)


def resolve(root, path):
    """The value at a dotted path, through mappings and attributes; _ABSENT when it does not resolve."""
    current = root
    for segment in path.split("."):
        if current is None or current is _ABSENT:
            return _ABSENT
        if isinstance(current, Mapping):
            current = current[segment] if segment in current else _ABSENT
        elif isinstance(current, _SCALARS):
            return _ABSENT
        else:
            current = getattr(current, segment, _ABSENT)
    return _ABSENT if current is None else current


def resolve_config(config, path):
    """A config path over a profile's roots, with the adapter's fallback root for other first segments."""
    fallback = _PROFILE_RULES.get("fallbackRoot")
    first = path.split(".", 1)[0]
    if fallback and first != fallback and not _has_root(config, first):
        return resolve(_root(config, fallback), path)
    return resolve(config, path)


def _has_root(config, name):
    if isinstance(config, Mapping):
        return name in config and config[name] is not None
    return False


def _root(config, name):
    if isinstance(config, Mapping):
        return config[name] if name in config else _ABSENT
    return _ABSENT


def read_env(name, value):
    """An environment value as the engine reads it (envParsing), or unchanged."""
    if value is None:
        return None
    parsing = (_PROFILE_RULES.get("envParsing") or {}).get(name)
    if parsing == "strip-lower":
        return value.strip().lower()
    return value


def _fact(leaf, profile):
    if "env" in leaf:
        env = profile.get("env") or {}
        value = read_env(leaf["env"], env.get(leaf["env"]) if leaf["env"] in env else None)
        return _ABSENT if value is None else value
    if "config" in leaf:
        return resolve_config(profile.get("config"), leaf["config"])
    value = profile.get("version")
    return _ABSENT if value is None else value


def _kind(value):
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    return None


def _same(a, b):
    kind = _kind(a)
    return kind is not None and kind == _kind(b) and a == b


def _truthy(value):
    if value is _ABSENT:
        return False
    if isinstance(value, (list, tuple, set, frozenset, Mapping)):
        return len(value) > 0
    return bool(value)


_VERSION = re.compile(
    r"^\s*v?(?:([0-9]+)!)?([0-9]+(?:\.[0-9]+)*)"
    r"(?:[-_.]?(alpha|a|beta|b|preview|pre|c|rc)[-_.]?([0-9]+)?)?"
    r"(?:-([0-9]+)|[-_.]?(post|rev|r)[-_.]?([0-9]+)?)?"
    r"(?:[-_.]?(dev)[-_.]?([0-9]+)?)?"
    r"(?:\+([a-z0-9]+(?:[-_.][a-z0-9]+)*))?\s*$",
    re.IGNORECASE | re.ASCII,
)
_PRE = {"alpha": 0, "a": 0, "beta": 1, "b": 1, "c": 2, "rc": 2, "pre": 2, "preview": 2}


def _version(value):
    """The PEP 440 sort key of a version string, or None when it is not one."""
    if not isinstance(value, str):
        return None
    m = _VERSION.match(value)
    if m is None:
        return None
    epoch, release, pre_l, pre_n, post_dash, post_l, post_n, dev_l, dev_n, local = m.groups()
    numbers = [int(p) for p in release.split(".")]
    while len(numbers) > 1 and numbers[-1] == 0:
        numbers.pop()
    if pre_l:
        pre = (_PRE[pre_l.lower()], int(pre_n or 0))
    elif dev_l and post_dash is None and not post_l:
        pre = (-1, 0)
    else:
        pre = (3, 0)
    post = int(post_dash) if post_dash is not None else int(post_n or 0) if post_l else -1
    dev = int(dev_n or 0) if dev_l else float("inf")
    if local:
        local = tuple((1, int(s), "") if s.isdigit() else (0, 0, s) for s in re.split(r"[-_.]", local.lower()))
    else:
        local = ()
    return (int(epoch or 0), tuple(numbers), pre, post, dev, 1 if local else 0, local)


def _compare_versions(a, b):
    x, y = _version(a), _version(b)
    if x is None or y is None:
        return None
    return (x > y) - (x < y)


def pin_matches(found, pinned):
    """Whether a found engine version is the pinned one: PEP 440 equality, local part ignored."""
    want, have = _version(pinned), _version(found)
    return want is not None and have is not None and want[:5] == have[:5]


def holds(predicate, profile):
    """Whether a rejection predicate holds over a profile (see the module docstring)."""
    if "all" in predicate:
        return all(holds(part, profile) for part in predicate["all"])
    if "any" in predicate:
        return any(holds(part, profile) for part in predicate["any"])
    if "not" in predicate:
        return not holds(predicate["not"], profile)
    op = predicate["op"]
    fact = _fact(predicate, profile)
    value = predicate.get("value")
    values = predicate.get("values") or []
    if op == "equals":
        return fact is not _ABSENT and _same(fact, value)
    if op == "not-equals":
        return not (fact is not _ABSENT and _same(fact, value))
    if op == "in":
        return fact is not _ABSENT and any(_same(fact, v) for v in values)
    if op == "not-in":
        return not (fact is not _ABSENT and any(_same(fact, v) for v in values))
    if op == "present":
        return fact is not _ABSENT
    if op == "absent":
        return fact is _ABSENT
    if op == "truthy":
        return _truthy(fact)
    if op == "count-greater-than":
        sized = isinstance(fact, (list, tuple, set, frozenset, Mapping))
        return sized and _kind(value) == "number" and len(fact) > value
    if op == "version-less-than":
        return _compare_versions(fact, value) == -1
    if op == "version-at-least":
        return _compare_versions(fact, value) in (0, 1)
    raise AssertionError("unknown predicate operator " + repr(op))


def _entry(rejection):
    return {
        "id": rejection["id"],
        "justifiedBy": list(rejection["justifiedBy"]),
        "message": rejection["message"],
        "instead": rejection["instead"],
        "gate": rejection["gate"],
    }


def evaluate(profile):
    """The verdict for a profile: the pin check and every rejection that holds, in id order."""
    engine = profile.get("engine")
    pin = None
    for candidate in _data.DATA["pins"]:
        if candidate["engine"] == engine:
            found = profile.get("version")
            pin = {"contract": candidate["contract"], "pinned": candidate["version"], "found": found, "matches": pin_matches(found, candidate["version"])}
            break
    failing = [_entry(r) for r in _data.DATA["rejections"] if r["engine"] == engine and holds(r["when"], profile)]
    return {"engine": engine, "accepted": pin is not None and pin["matches"] and not failing, "pin": pin, "rejections": failing}


def gate_text(steps, verb):
    """What must happen before the restriction goes, from the contracts' gates."""
    if not steps:
        return "No " + verb + " gate is recorded: this stays unsupported."
    parts = []
    for step in steps:
        needs = [u["requires"] + (" (" + u["upstream"] + ")" if u.get("upstream") else "") for u in step["upstream"]]
        text = step["contract"] + ": " + ("; ".join(needs) if needs else "no upstream change")
        if step["gates"]:
            text += ", then gates " + ", ".join(step["gates"]) + " pass"
        parts.append(text)
    return verb.capitalize() + " gate: " + " | ".join(parts) + "."


def describe(entry):
    """One rejection, as the adapters raise it."""
    return (
        _PRODUCT + " rejection " + entry["id"] + ": " + entry["message"] + ". Instead: " + entry["instead"] + ". Justified by: "
        + ", ".join(entry["justifiedBy"]) + ". " + gate_text(entry["gate"], "reopening")
    )


def describe_verdict(verdict):
    lines = []
    pin = verdict.get("pin")
    if pin is None:
        lines.append(_PRODUCT + " has no pin for engine " + repr(verdict.get("engine")) + ".")
    elif not pin["matches"]:
        lines.append(
            _PRODUCT + " rejection " + pin["contract"] + ": the adapter is pinned to " + str(verdict.get("engine")) + " " + pin["pinned"]
            + " but found " + repr(pin["found"]) + " (PEP 440, local part ignored). Instead: install the pinned engine version."
        )
    lines.extend(describe(entry) for entry in verdict["rejections"])
    return "\n".join(lines)


def profile_problem(profile):
    """Why a preflight profile is malformed, or None."""
    if not isinstance(profile, dict):
        return "the profile must be a JSON object"
    if not isinstance(profile.get("engine"), str):
        return "the profile needs \"engine\": a string"
    if not isinstance(profile.get("version"), str):
        return "the profile needs \"version\": a string"
    env = profile.get("env", {})
    if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
        return "\"env\" must be an object of strings"
    if not isinstance(profile.get("config", {}), dict):
        return "\"config\" must be an object"
    return None


def check(profile):
    """Raises ProfileRejected unless the profile is accepted; returns the verdict."""
    verdict = evaluate(profile)
    if not verdict["accepted"]:
        raise ProfileRejected(verdict)
    return verdict


def engine_version():
    """The running engine's version: its distribution's metadata, else its package's __version__."""
    import importlib
    import importlib.metadata

    engine = _data.DATA["engine"]
    try:
        return importlib.metadata.version(engine["distribution"])
    except importlib.metadata.PackageNotFoundError:
        pass
    try:
        module = importlib.import_module(engine["package"])
    except ImportError:
        return None
    return getattr(module, "__version__", None)


def live_profile(config, environ=None):
    """The profile the checks read on a live engine: the engine, its running version, the
    environment, and the config roots the adapter hands over (one envelope for every template)."""
    return {
        "engine": _data.DATA["engine"]["name"],
        "version": engine_version(),
        "env": dict(os.environ if environ is None else environ),
        "config": dict(config),
    }


def check_pin(version=None):
    """Raises ProfileRejected unless the running engine is the pinned version; returns the version."""
    engine = _data.DATA["engine"]
    found = engine_version() if version is None else version
    matches = pin_matches(found, engine["version"])
    verdict = {
        "engine": engine["name"],
        "accepted": matches,
        "pin": {"contract": engine["contract"], "pinned": engine["version"], "found": found, "matches": matches},
        "rejections": [],
    }
    if not verdict["accepted"]:
        raise ProfileRejected(verdict)
    return found
`;
