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

One connection per process and role (scheduler, worker, hook, tree cache, ...): a half, once
made, is reused. A half is a _client.Client: handshaken with the live profile (the rejection
checks' profile, reduced to what those checks read), able to register pages, look up, restore,
save, cancel and release. No Manager answering raises ManagerNotReachable naming the socket and
how to start the Manager. Nothing here runs at import time.
"""

import threading

from . import _client, _data

PRODUCT: str = _data.DATA["product"]["name"]
SOCKET_ENV: str = _data.DATA["manager"]["socketEnv"]
_HALVES: "dict[str, object]" = {}
_PROFILE: "dict[str, object]" = {}
_LOCK = threading.Lock()

ManagerNotReachable = _client.ManagerNotReachable
ManagerRefused = _client.ManagerRefused


def socket_path() -> str:
    """The Manager's socket: SOCKET_ENV, else the product's default (the rule serve applies)."""
    return _client.default_socket_path()


def use_profile(profile: dict) -> None:
    """Sets the live profile halves handshake with (the adapters call it once they admitted it)."""
    _PROFILE["profile"] = profile


def open_half(role: str, profile: "dict | None" = None) -> object:
    """A new connected client for one role; raises ManagerNotReachable or ManagerRefused."""
    if profile is None:
        profile = _PROFILE.get("profile")
    if profile is None:
        from . import rejections

        profile = rejections.live_profile({})
    return _client.connect(profile, role, name=PRODUCT + "-" + str(role))


def connect(role: str, profile: "dict | None" = None) -> object:
    """The process's half for one role, connected once (the first call's profile is kept)."""
    if profile is not None and "profile" not in _PROFILE:
        use_profile(profile)
    half = _HALVES.get(role)
    if half is not None:
        return half
    with _LOCK:
        half = _HALVES.get(role)
        if half is None:
            half = open_half(role)
            _HALVES[role] = half
    return half
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
