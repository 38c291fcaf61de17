"""Runs one scenario in a fresh interpreter: the stand-in engine and the generated package
(unzipped from its wheel, dist-info included, so entry points load as installed) on the path.

Environment: CONFORMANCE_SITE (unzipped wheels), CONFORMANCE_STANDINS (spec/conformance/standins).
The adapter package is found through the engine's entry-point group, never by name.
"""

import json
import os
import subprocess
import sys
import tempfile
import textwrap

SITE = os.environ["CONFORMANCE_SITE"]
STANDINS = os.environ["CONFORMANCE_STANDINS"]
GROUPS = {"sglang": "sglang.srt.plugins", "vllm": "vllm.general_plugins"}

PRELUDE = '''
import importlib, json, logging, os, sys
from importlib.metadata import entry_points
logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
(_EP,) = [e for e in entry_points(group=os.environ["CONFORMANCE_GROUP"]) if not e.name.startswith("zz")]
PKG = _EP.value.split(".")[0]
DATA = importlib.import_module(PKG + "._data").DATA
CONNECTS = []

class FakeHalf:
    def __init__(self, role):
        self.role = role
        self.calls = []
    def call(self, method, args, kwargs):
        self.calls.append(method)
        CONNECTS.append(("call", self.role, method))
        return None

def fake_manager():
    manager = importlib.import_module(PKG + ".manager")
    def open_half(role):
        CONNECTS.append(("connect", role))
        return FakeHalf(role)
    manager.open_half = open_half
    return manager

def result(**values):
    sys.stdout.write("RESULT=" + json.dumps(values, default=repr) + "\\n")
'''


def run(engine, code, argv=(), env=None, extra_site=None):
    """(exit status, result dict or None, stderr) of the scenario code."""
    paths = [os.path.join(STANDINS, engine), SITE] + ([extra_site] if extra_site else [])
    full_env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": os.pathsep.join(paths), "PYTHONDONTWRITEBYTECODE": "1", "CONFORMANCE_GROUP": GROUPS[engine]}
    full_env.update(env or {})
    proc = subprocess.run([sys.executable, "-c", PRELUDE + textwrap.dedent(code)] + list(argv), env=full_env, capture_output=True, text=True, timeout=60)
    found = None
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT="):
            found = json.loads(line[len("RESULT="):])
    return proc.returncode, found, proc.stderr


def other_plugin(engine, name, body):
    """A site folder with one more installed plugin (entry point `name` in the engine's group)."""
    root = tempfile.mkdtemp(prefix="conformance-plugin-")
    module = name.replace("-", "_")
    with open(os.path.join(root, module + ".py"), "w", encoding="utf-8") as handle:
        handle.write(textwrap.dedent(body))
    info = os.path.join(root, module + "-1.0.dist-info")
    os.mkdir(info)
    with open(os.path.join(info, "METADATA"), "w", encoding="utf-8") as handle:
        handle.write("Metadata-Version: 2.1\nName: " + module + "\nVersion: 1.0\n")
    with open(os.path.join(info, "entry_points.txt"), "w", encoding="utf-8") as handle:
        handle.write("[" + GROUPS[engine] + "]\n" + name + " = " + module + ":register\n")
    return root


def package_data(engine):
    """The generated package's data (expectations come from it, never from hard-coded ids)."""
    _code, found, err = run(engine, "result(data=DATA)")
    if found is None:
        raise AssertionError(err)
    return found["data"]
