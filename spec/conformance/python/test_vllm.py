"""The generated vLLM package driven through the stand-in vLLM: general plugins, the connector
factory building cls(config, role, kv_cache_config) and refusing abstract classes, and the
preflight against the same profiles. Numbers in test names are the issue's items."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

from harness import SITE, STANDINS, package_data, run

DATA = package_data("vllm")
T = DATA["template"]
CONNECTOR = T["connectors"][0]["className"]
PIN = DATA["engine"]["version"]
PRODUCT = DATA["product"]["name"]

LIVE = """
fake = os.environ.get("FAKE_MANAGER") == "1"
if fake:
    fake_manager()
from types import SimpleNamespace
from vllm.config import KVTransferConfig, VllmConfig
from vllm.entrypoints.launch import launch
profile = json.loads(os.environ["PROFILE"])
def objects(value):
    if isinstance(value, dict):
        return SimpleNamespace(**{k: objects(v) for k, v in value.items()})
    if isinstance(value, list):
        return [objects(v) for v in value]
    return value
config = profile.get("config", {})
root = config.get("vllm_config", {})
fields = {k: objects(v) for k, v in root.items()}
for key, value in config.items():
    if key not in ("vllm_config", "kv_cache_config"):
        fields[key] = objects(value)
fields.setdefault("kv_transfer_config", SimpleNamespace())
fields["kv_transfer_config"].kv_connector = %r
kv_cache = objects(config.get("kv_cache_config", {"num_blocks": 8, "kv_cache_groups": [{"layer_names": ["layer.0"], "kv_cache_spec": {"block_size": 16, "page_size_bytes": 2048, "dtype": "bfloat16"}}]}))
os.environ.update(profile.get("env", {}))
sys.argv = ["vllm", "serve", "--kv-transfer-config", json.dumps({"kv_connector": %r})]
try:
    connector = launch(VllmConfig(**fields), kv_cache)
except SystemExit as error:
    result(exit=error.code, connects=CONNECTS)
    raise
except Exception as error:
    result(error=type(error).__name__ + ": " + str(error), connects=CONNECTS)
    raise SystemExit(4)
result(exit=0, built=type(connector).__name__, connects=CONNECTS)
""" % (CONNECTOR, CONNECTOR)


def reads(path):
    """Whether some rejection of the package reads this config path or env var."""
    def walk(node):
        for key in ("all", "any"):
            if key in node:
                return any(walk(p) for p in node[key])
        if "not" in node:
            return walk(node["not"])
        return node.get("config") == path or node.get("env") == path
    return any(walk(r["when"]) for r in DATA["rejections"])


def base_profile(**config):
    good = {"kv_transfer_config": {"kv_load_failure_policy": "recompute", "kv_role": "kv_both"}}
    good.update(config)
    return {"engine": DATA["engine"]["name"], "version": PIN, "env": {"VLLM_USE_V2_MODEL_RUNNER": "0"}, "config": good}


def nested(profile):
    """The same profile with every vllm_config attribute under a vllm_config root."""
    config = dict(profile["config"])
    kv = config.pop("kv_cache_config", None)
    out = dict(profile, config={"vllm_config": config, **({"kv_cache_config": kv} if kv is not None else {})})
    return out


def preflight(profile):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(profile, handle)
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": SITE, "PYTHONDONTWRITEBYTECODE": "1"}
    proc = subprocess.run([sys.executable, "-m", DATA["package"]["importName"] + ".preflight", "--profile", handle.name], env=env, capture_output=True, text=True)
    os.unlink(handle.name)
    return proc.returncode


def live(profile, fake=True):
    env = {"PROFILE": json.dumps(profile), "FAKE_MANAGER": "1" if fake else "0", "STANDIN_VLLM_VERSION": profile["version"]}
    status, found, err = run("vllm", LIVE, env=env)
    return status, found, err


class VllmConformance(unittest.TestCase):
    def test_factory_builds_the_connector_with_three_arguments(self):
        status, found, err = live(base_profile())
        self.assertEqual(status, 0, err)
        self.assertEqual(found["built"], CONNECTOR)
        self.assertEqual(found["connects"], [["connect", "scheduler"]])

    def test_manager_not_reachable_names_the_product_and_its_env(self):
        status, found, err = live(base_profile(), fake=False)
        self.assertEqual(status, 3, err)
        self.assertIn(PRODUCT + " Manager not reachable", err)
        self.assertIn(DATA["product"]["envPrefix"] + "_MANAGER_SOCKET", err)

    def test_08_preflight_and_live_agree_on_config_roots(self):
        cases = [
            ("speculative", base_profile(speculative_config={"method": "eagle"}), 3),
            ("lora", dict(base_profile(lora_config={"max_loras": 1}), env={"VLLM_USE_V2_MODEL_RUNNER": "0", "VLLM_ALLOW_RUNTIME_LORA_UPDATING": "1"}), 3 if reads("lora_config") else 0),
            ("accepted", base_profile(), 0),
        ]
        self.assertTrue(reads("speculative_config"))
        for name, profile, expected in cases:
            for shape in (profile, nested(profile)):
                self.assertEqual(preflight(shape), expected, name + " preflight " + json.dumps(shape))
                status, _found, err = live(shape)
                self.assertEqual(status, 0 if expected == 0 else 3, name + " live " + err)

    def test_09_a_local_version_part_matches_the_pin(self):
        profile = dict(base_profile(), version=PIN + "+cu130")
        self.assertEqual(preflight(profile), 0)
        status, found, err = live(profile)
        self.assertEqual(status, 0, err)
        self.assertEqual(preflight(dict(base_profile(), version=PIN + "rc1")), 3)

    @unittest.skipUnless(reads("VLLM_ALLOW_RUNTIME_LORA_UPDATING"), "no rejection reads the runtime LoRA switch")
    def test_11_env_values_are_read_as_vllm_reads_them(self):
        for value, expected in ((" 1", 3), ("tRue", 3), ("1 ", 3), ("0", 0), ("yes", 0)):
            profile = dict(base_profile(lora_config={"max_loras": 1}), env={"VLLM_USE_V2_MODEL_RUNNER": "0", "VLLM_ALLOW_RUNTIME_LORA_UPDATING": value})
            self.assertEqual(preflight(profile), expected, repr(value))
            status, _found, err = live(profile)
            self.assertEqual(status, 0 if expected == 0 else 3, repr(value) + err)

    def test_12_a_rejection_is_logged_once(self):
        status, _found, err = live(base_profile(speculative_config={"method": "eagle"}))
        self.assertEqual(status, 3, err)
        first = err.splitlines()
        self.assertEqual(sum(1 for line in first if "rejection " in line and line.startswith("CRITICAL")), 1, err)

    def test_14_connector_set_up_failures_stop_named(self):
        code = """
fake_manager()
from vllm.config import AttentionSpec, KVCacheConfig, KVCacheGroupSpec, KVTransferConfig, VllmConfig
from vllm.distributed.kv_transfer.kv_connector.factory import KVConnectorFactory
from vllm.distributed.kv_transfer.kv_connector.v1.base import KVConnectorRole
from vllm.plugins import load_general_plugins
os.environ["VLLM_USE_V2_MODEL_RUNNER"] = "0"
sys.argv = ["vllm", "serve", "--kv-transfer-config", json.dumps({"kv_connector": %r})]
load_general_plugins()
extra = json.loads(os.environ["EXTRA"])
config = VllmConfig(kv_transfer_config=KVTransferConfig(kv_connector=%r, kv_role="kv_both", kv_load_failure_policy="recompute", kv_connector_extra_config=extra))
spec = AttentionSpec(block_size=16, page_size_bytes=2048, dtype="bfloat16")
kv = KVCacheConfig(num_blocks=4, kv_cache_groups=[KVCacheGroupSpec(layer_names=["layer.0"], kv_cache_spec=spec)])

class DeviceTensor:
    is_cuda = True

try:
    connector = KVConnectorFactory.create_connector(config, KVConnectorRole.WORKER, kv)
    connector.register_kv_caches({"layer.0": DeviceTensor()})
except SystemExit as error:
    result(exit=error.code, connects=CONNECTS)
    raise
result(exit=0)
""" % (CONNECTOR, CONNECTOR)
        for extra, connects in (({"load_mode": "eager", "lookup_deadline_ms": 10}, []), ({"no_such_option": 1}, []), ({}, [["connect", "worker"]])):
            status, found, err = run("vllm", code, env={"EXTRA": json.dumps(extra)})
            self.assertEqual(status, 3, err)
            self.assertEqual(found, {"exit": 3, "connects": connects}, err)
            critical = [line for line in err.splitlines() if line.startswith("CRITICAL")]
            self.assertEqual(len(critical), 1, err)
            for key in extra:
                if key != "lookup_deadline_ms":
                    self.assertIn(key, critical[0])

    def test_unselected_plugin_registers_nothing(self):
        code = """
from vllm.plugins import load_general_plugins
from vllm.distributed.kv_transfer.kv_connector.factory import KVConnectorFactory
sys.argv = ["vllm", "serve", "--kv-transfer-config", '{"kv_connector": "NixlConnector"}']
load_general_plugins()
result(registered=sorted(KVConnectorFactory._registry), torch="torch" in sys.modules)
"""
        status, found, err = run("vllm", code)
        self.assertEqual(status, 0, err)
        self.assertEqual(found, {"registered": [], "torch": False})


if __name__ == "__main__":
    unittest.main()
