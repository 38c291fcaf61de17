/** How the SGLang plugin learns, once per process and without a strict parse, whether the product is selected. */
export const SELECTION_PY = String.raw`"""Whether the product is the selected cache of this SGLang process, decided once.

SGLang's own parser is strict (and 'sglang serve ...' puts a subcommand first), so the command
line is never re-parsed: each selector (a flag and the value that selects the product, possibly
a key of a JSON value) is looked up as '--flag VALUE' or '--flag=VALUE', and in a '--config'
file as a 'flag: value' line (dashes or underscores). An explicit environment switch selects the
product for the Engine API, whose arguments never reach the command line. The live server
arguments decide again where the engine hands them over (the backend factory).
"""

import json
import os
import re
import sys

from . import _data

_TEMPLATE = _data.DATA["template"]
SELECT_ENV: str = _data.DATA["product"]["envPrefix"] + "_SELECTED"
_DECIDED: "dict[str, object]" = {}


def _values(argv, flag):
    """Every value given to flag on the command line, and in --config files (None: flag absent)."""
    found = []
    for index, arg in enumerate(argv):
        if arg == flag and index + 1 < len(argv):
            found.append(argv[index + 1])
        elif arg.startswith(flag + "="):
            found.append(arg[len(flag) + 1:])
    for index, arg in enumerate(argv):
        path = argv[index + 1] if arg == "--config" and index + 1 < len(argv) else arg[len("--config="):] if arg.startswith("--config=") else None
        if path is None:
            continue
        try:
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
        except OSError:
            continue
        key = flag.lstrip("-")
        pattern = re.compile(r"^\s*(?:" + re.escape(key) + "|" + re.escape(key.replace("-", "_")) + r")\s*:\s*(.+?)\s*$", re.MULTILINE)
        for m in pattern.finditer(text):
            value = m.group(1)
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
                value = value[1:-1]
            found.append(value)
    return found


def _matches(value, selector):
    if "jsonKey" not in selector:
        return value == selector["value"]
    try:
        parsed = json.loads(value)
    except ValueError:
        return False
    return isinstance(parsed, dict) and parsed.get(selector["jsonKey"]) == selector["value"]


def decide(argv: "list[str] | None" = None, environ: "dict | None" = None) -> "str | None":
    """'selected', 'other' (the command line selects something else) or None (it does not say)."""
    argv = sys.argv if argv is None else argv
    environ = os.environ if environ is None else environ
    if environ.get(SELECT_ENV, "").strip().lower() in ("1", "true"):
        return "selected"
    selectors = _TEMPLATE["selectors"]
    said = None
    for selector in selectors:
        values = _values(argv, selector["flag"])
        if not values:
            return "other" if said else None
        if not any(_matches(v, selector) for v in values):
            return "other"
        said = "selected"
    return said


def selection() -> "str | None":
    """decide() for this process's command line and environment, computed once."""
    if "choice" not in _DECIDED:
        _DECIDED["choice"] = decide()
    return _DECIDED["choice"]


def selected() -> bool:
    return selection() == "selected"
`;
