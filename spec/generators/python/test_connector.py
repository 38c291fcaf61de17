"""The generated vLLM connector and plugin against a stand-in vLLM (modules built in memory).

Environment: ORBITKV_PACKAGE_ROOTS (the generated orbitkv-vllm source root). Expectations come
from the package's contract data.
"""

import abc
import importlib
import io
import os
import sys
import types
import unittest
from contextlib import redirect_stderr
from types import SimpleNamespace
from unittest import mock

sys.path[:0] = os.environ["ORBITKV_PACKAGE_ROOTS"].split(os.pathsep)

from orbitkv_vllm import _data, manager, plugin, rejections  # noqa: E402

TEMPLATE = _data.DATA["template"]
SPEC = TEMPLATE["connectors"][0]
REGISTERED = []


def install_fake_vllm(version):
    for name in [n for n in sys.modules if n == "vllm" or n.startswith("vllm.")]:
        del sys.modules[name]
    REGISTERED.clear()

    def module(name, **attrs):
        mod = types.ModuleType(name)
        mod.__dict__.update(attrs)
        sys.modules[name] = mod
        parent, _, child = name.rpartition(".")
        if parent:
            setattr(sys.modules[parent], child, mod)
        return mod

    module("vllm", __version__=version)

    class Base(abc.ABC):
        def __init__(self, vllm_config, role, kv_cache_config=None):
            self.base_initialised = True

        @abc.abstractmethod
        def start_load_kv(self, forward_context, **kwargs):
            raise NotImplementedError

    class Factory:
        @classmethod
        def register_connector(cls, name, module_path, class_name):
            REGISTERED.append((name, module_path, class_name))

    base_module = SPEC["base"]["module"]
    factory = TEMPLATE["factory"]
    for name in sorted({base_module, factory["module"]}):
        parts = name.split(".")
        for i in range(2, len(parts) + 1):
            if ".".join(parts[:i]) not in sys.modules:
                module(".".join(parts[:i]))
    setattr(sys.modules[base_module], SPEC["base"]["name"], Base)
    setattr(sys.modules[factory["module"]], factory["name"], Factory)
    sys.modules.pop("orbitkv_vllm.connector", None)


def vllm_config(**overrides):
    config = SimpleNamespace(
        use_v2_model_runner=False,
        model_config=SimpleNamespace(is_hybrid=False, is_attention_free=False, hf_text_config=SimpleNamespace(model_type="qwen3")),
        cache_config=SimpleNamespace(mamba_cache_mode="none"),
        speculative_config=None,
        lora_config=None,
        kv_transfer_config=SimpleNamespace(kv_role="kv_both", kv_load_failure_policy="recompute"),
    )
    config.__dict__.update(overrides)
    return config


ONE_GROUP = SimpleNamespace(kv_cache_groups=[SimpleNamespace()])


class ConnectorTest(unittest.TestCase):
    def setUp(self):
        install_fake_vllm(_data.DATA["engine"]["version"])
        self.connector = importlib.import_module("orbitkv_vllm.connector")
        self.cls = getattr(self.connector, SPEC["className"])

    def test_the_class_implements_the_consumed_methods_over_the_base(self):
        base = getattr(sys.modules[SPEC["base"]["module"]], SPEC["base"]["name"])
        self.assertTrue(issubclass(self.cls, base))
        for method in SPEC["methods"]:
            self.assertIn(method, self.cls.__dict__, method)
        self.assertEqual(self.cls.__abstractmethods__, frozenset())

    def construct(self, config, kv_cache_config=ONE_GROUP):
        return self.cls(config, SimpleNamespace(name="SCHEDULER"), kv_cache_config)

    def test_rejections_run_before_any_connection(self):
        with mock.patch.dict(os.environ, {}, clear=True), mock.patch.object(manager, "connect") as connect:
            with self.assertRaises(rejections.ProfileRejected) as caught:
                self.construct(vllm_config())
        connect.assert_not_called()
        v2 = [r["id"] for r in _data.DATA["rejections"] if "VLLM_USE_V2_MODEL_RUNNER" in repr(r["when"])]
        self.assertEqual([e["id"] for e in caught.exception.verdict["rejections"]], v2)
        self.assertIn("Instead:", str(caught.exception))

    def test_live_attributes_are_read_through_getattr(self):
        two_groups = SimpleNamespace(kv_cache_groups=[SimpleNamespace(), SimpleNamespace()])
        with mock.patch.dict(os.environ, {"VLLM_USE_V2_MODEL_RUNNER": "0"}, clear=True), mock.patch.object(manager, "connect") as connect:
            with self.assertRaises(rejections.ProfileRejected) as caught:
                self.construct(vllm_config(speculative_config=SimpleNamespace(method="eagle")), two_groups)
        connect.assert_not_called()
        expected = [r["id"] for r in _data.DATA["rejections"] if r["when"].get("config") in ("kv_cache_config.kv_cache_groups", "speculative_config")]
        self.assertEqual([e["id"] for e in caught.exception.verdict["rejections"]], sorted(expected))

    def test_an_accepted_profile_needs_the_manager(self):
        with mock.patch.dict(os.environ, {"VLLM_USE_V2_MODEL_RUNNER": "0"}, clear=True):
            with self.assertRaises(manager.ManagerNotReachable) as caught:
                self.construct(vllm_config())
        self.assertIn("scheduler", str(caught.exception))

    def test_every_consumed_method_delegates_to_the_role_half(self):
        calls = []

        class Half:
            def __init__(self, role):
                self.role = role

            def call(self, method, args, kwargs):
                calls.append((self.role, method, args, kwargs))
                return method

        with mock.patch.dict(os.environ, {"VLLM_USE_V2_MODEL_RUNNER": "0"}, clear=True), mock.patch.object(manager, "connect", Half):
            worker = self.cls(vllm_config(), SimpleNamespace(name="WORKER"), ONE_GROUP)
        for method in SPEC["methods"]:
            self.assertEqual(getattr(worker, method)(1, key=2), method)
        self.assertEqual(calls, [("worker", m, (1,), {"key": 2}) for m in SPEC["methods"]])

    def test_requires_kv_delivery_comes_from_the_interface(self):
        self.assertIs(self.cls.requires_kv_delivery.fget(None), SPEC["requiresKvDelivery"])


class PluginTest(unittest.TestCase):
    def test_not_selected_imports_nothing(self):
        for name in [n for n in sys.modules if n == "vllm" or n.startswith("vllm.")]:
            del sys.modules[name]
        self.assertIsNone(plugin.register(argv=["vllm", "serve", "model"]))
        self.assertNotIn("vllm", sys.modules)

    def test_selected_registers_the_connector_by_module_path(self):
        install_fake_vllm(_data.DATA["engine"]["version"])
        argv = ["vllm", "serve", "m", "--kv-transfer-config", '{"kv_connector":"' + SPEC["className"] + '"}']
        self.assertEqual(plugin.register(argv=argv), [SPEC["className"]])
        self.assertEqual(REGISTERED, [(SPEC["className"], "orbitkv_vllm.connector", SPEC["className"])])

    def test_selected_with_another_engine_version_stops(self):
        install_fake_vllm("0.0.1")
        argv = ["vllm", "serve", "--kv-transfer-config", SPEC["className"]]
        with redirect_stderr(io.StringIO()), self.assertRaises(SystemExit) as caught:
            plugin.register(argv=argv)
        self.assertIn(_data.DATA["engine"]["contract"], str(caught.exception.code))
        self.assertEqual(REGISTERED, [])


if __name__ == "__main__":
    unittest.main()
