"""The generated SGLang package (HiCache storage style) driven through the stand-in SGLang: the
dynamic storage backend loads the class by module path, requires a HiCacheStorage subclass and
builds it as cls(storage_config, kwargs); the constructor evaluates the rejections on the live
storage config before any Manager connection."""

import json
import unittest

from harness import package_data, run

DATA = package_data("sglang")
T = DATA["template"]
SKIP = T.get("style") != "hicache-storage"
PRODUCT = DATA["product"]["name"]


def serve_args(extra=()):
    config = json.dumps(T["dynamicConfig"][0])
    return ["serve", "--enable-hierarchical-cache", "--hicache-storage-backend", "dynamic", "--hicache-storage-backend-extra-config", config, *extra]


SERVE = """
if os.environ.get("FAKE_MANAGER") == "1":
    fake_manager()
from sglang.srt.entrypoints.launch import launch
from sglang.srt.server_args import prepare_server_args
sys.argv = ["sglang"] + sys.argv[1:]
try:
    cache = launch(prepare_server_args(sys.argv[2:]), json.loads(os.environ.get("CONTEXT", "{}")))
except SystemExit as error:
    result(exit=error.code, connects=CONNECTS)
    raise
result(built=type(cache).__name__, bases=[b.__name__ for b in type(cache).__mro__], connects=CONNECTS)
"""


@unittest.skipIf(SKIP, "the registry's SGLang adapter is not the hicache-storage style")
class SglangHiCacheConformance(unittest.TestCase):
    def test_dynamic_backend_builds_the_storage_class(self):
        status, found, err = run("sglang", SERVE, serve_args(), {"FAKE_MANAGER": "1"})
        self.assertEqual(status, 0, err)
        self.assertEqual(found["built"], T["storageBackends"][0]["className"])
        self.assertIn("HiCacheStorage", found["bases"])
        self.assertEqual(found["connects"][0], ["connect", "storage"])

    def test_manager_not_reachable_names_the_product(self):
        status, found, err = run("sglang", SERVE, serve_args())
        self.assertEqual(status, 3, err)
        self.assertIn(PRODUCT + " Manager not reachable", err)
        self.assertIn(DATA["product"]["envPrefix"] + "_MANAGER_SOCKET", err)

    def test_rejection_on_the_live_storage_config_before_any_connection(self):
        rejection = next(r["id"] for r in DATA["rejections"] if r["when"].get("config") == "storage_config.is_mla_model")
        status, found, err = run("sglang", SERVE, serve_args(), {"FAKE_MANAGER": "1", "CONTEXT": json.dumps({"is_mla_model": True})})
        self.assertEqual(status, 3, err)
        self.assertIn(rejection, err)
        self.assertEqual(found["connects"], [])

    def test_storage_class_has_the_whole_abstract_shape(self):
        code = """
fake_manager()
from sglang.srt.mem_cache.hicache_storage import HiCacheStorage, HiCacheStorageConfig
storage = importlib.import_module(PKG + ".storage")
cls = getattr(storage, DATA["template"]["storageBackends"][0]["className"])
result(abstract=sorted(getattr(cls, "__abstractmethods__", ())), subclass=issubclass(cls, HiCacheStorage))
"""
        status, found, err = run("sglang", code)
        self.assertEqual(status, 0, err)
        self.assertEqual(found, {"abstract": [], "subclass": True})

    def test_opt_in_hook_registers_with_its_switch_and_is_verified(self):
        hook = T["hooks"][0]
        switch = hook["activation"]["switches"][0]
        code = """
fake_manager()
from sglang.srt.plugins import load_plugins
sys.argv = ["sglang"] + sys.argv[1:]
load_plugins()
hooks = importlib.import_module(PKG + ".hooks")
result(verified=hooks.verify_installed())
"""
        status, found, err = run("sglang", code, serve_args(), {switch["env"]: switch["value"]})
        self.assertEqual(status, 0, err)
        self.assertEqual(found["verified"], [hook["id"]])

    def test_another_storage_backend_leaves_the_plugin_idle(self):
        code = """
from sglang.srt.plugins import load_plugins
sys.argv = ["sglang", "serve", "--hicache-storage-backend", "file"]
load_plugins()
from sglang.srt.plugins.hook_registry import HookRegistry
result(pending=len(HookRegistry._pending), applied=sorted(HookRegistry._applied), torch="torch" in sys.modules)
"""
        status, found, err = run("sglang", code, env={T["hooks"][0]["activation"]["switches"][0]["env"]: "1"})
        self.assertEqual(status, 0, err)
        self.assertEqual(found, {"pending": 0, "applied": [], "torch": False})


if __name__ == "__main__":
    unittest.main()
