/**
 * The Python modules every adapter package has, whatever its engine: the package marker, the
 * Manager boundary, the one way a selected adapter stops the process, and the preflight command.
 * Fixed text; every name (product, env prefix, engine) comes from `_data`.
 */

/** The header of every generated module (the product name is schema-restricted to `[A-Za-z][A-Za-z0-9 ._-]*`). */
export const generatedHeader = (product: string): string =>
  `# Generated from the ${product} contracts by the contract generator ("generate"); do not edit.\n# Regenerate with the generate command of the tool that owns the contracts.\n`;

export const INIT_PY = String.raw`"""An engine adapter package, generated from its product's contracts.

Importing it imports nothing heavy (no torch, no native runtime) and opens no connection: the
engine-facing modules load only when the product is the selected cache.
"""

from ._data import DATA as _DATA

__version__: str = _DATA["package"]["version"]
PRODUCT: str = _DATA["product"]["name"]
ENGINE: str = _DATA["engine"]["name"]
ENGINE_PIN: str = _DATA["engine"]["version"]
`;

export const STOP_PY = String.raw`"""How a selected adapter stops the engine process: one log record, one SystemExit.

SGLang and vLLM log and ignore ordinary plugin exceptions, so a rejection of a selected adapter
must end the process. The rejection text is logged once under the package's logger; SystemExit
carries only the exit status, so nothing prints the text a second time.
"""

import logging

from . import _data

REJECTED_EXIT: int = 3
LOG = logging.getLogger(__package__)


def stop(text: str, cause: "BaseException | None" = None) -> "None":
    """Logs the rejection once and raises SystemExit(REJECTED_EXIT), chained to its cause."""
    LOG.critical("%s", text)
    exit_error = SystemExit(REJECTED_EXIT)
    exit_error.rejection = text
    if cause is not None:
        raise exit_error from cause
    raise exit_error


def failure_text(where: str, error: BaseException) -> str:
    """A named rejection for an unexpected failure while the product is selected."""
    product = _data.DATA["product"]["name"]
    return (
        product + " rejection " + _data.DATA["engine"]["contract"] + ": the " + where + " failed while " + product
        + " is the selected cache: " + repr(error) + ". Instead: fix the cause or select another cache."
    )
`;

export const MANAGER_PY = String.raw`"""The boundary to the product's Manager (a separate process reached over a Unix socket).

The Manager client comes with the runtime. Until it is part of this package, every attempt to
reach the Manager fails with ManagerNotReachable, naming the product and the socket variable,
instead of pretending to work. One connection per process and role: a half, once made, is reused.
Nothing here runs at import time.
"""

import os
import threading

from . import _data

PRODUCT: str = _data.DATA["product"]["name"]
SOCKET_ENV: str = _data.DATA["product"]["envPrefix"] + "_MANAGER_SOCKET"
_HALVES: "dict[str, object]" = {}
_LOCK = threading.Lock()


class ManagerNotReachable(RuntimeError):
    """The adapter could not reach the product's Manager."""


def socket_path() -> str:
    return os.environ.get(SOCKET_ENV) or "(" + SOCKET_ENV + " is not set)"


def open_half(role: str) -> object:
    """A new connection for one role; raises ManagerNotReachable (no client in this build)."""
    raise ManagerNotReachable(
        PRODUCT + " Manager not reachable for the " + str(role) + " half at " + socket_path()
        + ": this adapter build has no Manager client. Start the " + PRODUCT + " Manager and install an adapter"
        + " built with the runtime client, or deselect " + PRODUCT + "."
    )


def connect(role: str) -> object:
    """The process's half for one role (scheduler, worker, hook, tree cache), connected once."""
    half = _HALVES.get(role)
    if half is not None:
        return half
    with _LOCK:
        half = _HALVES.get(role)
        if half is None:
            half = open_half(role)
            _HALVES[role] = half
    return half


def delegating_class(name: str, base: type, methods: "list[str]", module: str, namespace: "dict | None" = None) -> type:
    """A subclass of base whose listed methods delegate to the Manager half held in _adapter_half."""

    def make(method: str):
        def call(self, *args, **kwargs):
            return self._adapter_half.call(method, args, kwargs)

        call.__name__ = method
        call.__qualname__ = name + "." + method
        return call

    body = {method: make(method) for method in methods}
    body.update(namespace or {})
    body["__module__"] = module
    return type(base)(name, (base,), body)
`;

export const PREFLIGHT_PY = String.raw`"""Preflight: evaluate an engine profile against the rejection contracts before a deployment.

    python3 -m <package>.preflight --profile FILE.json

Prints a JSON verdict; exits 0 when the profile is accepted, 3 when it is rejected, 2 when the
profile cannot be read. The adapters run the same checks at start-up on the live engine.
"""

import argparse
import json
import sys

from . import _data, rejections


def main(argv: "list[str] | None" = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python3 -m " + __package__ + ".preflight",
        description="Check an engine profile against the " + _data.DATA["product"]["name"] + " rejection contracts.",
    )
    parser.add_argument("--profile", required=True, help="JSON file: {engine, version, env, config}")
    args = parser.parse_args(argv)
    try:
        with open(args.profile, encoding="utf-8") as handle:
            profile = json.load(handle)
    except (OSError, ValueError) as error:
        sys.stderr.write("preflight: cannot read profile " + args.profile + ": " + str(error) + "\n")
        return 2
    problem = rejections.profile_problem(profile)
    if problem is None and profile["engine"] != _data.DATA["engine"]["name"]:
        problem = "this is the " + _data.DATA["engine"]["name"] + " adapter; the profile is for " + repr(profile["engine"])
    if problem is not None:
        sys.stderr.write("preflight: " + args.profile + ": " + problem + "\n")
        return 2
    verdict = rejections.evaluate(profile)
    sys.stdout.write(json.dumps(verdict, indent=2, sort_keys=True) + "\n")
    if not verdict["accepted"]:
        sys.stderr.write(rejections.describe_verdict(verdict) + "\n")
    return 0 if verdict["accepted"] else 3


def run() -> None:
    """The console script: exits with main()'s status."""
    sys.exit(main())


if __name__ == "__main__":
    run()
`;
