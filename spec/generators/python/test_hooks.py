"""The generated SGLang hook installer against fixture modules with SGLang's dotted layout.

Environment: ORBITKV_PACKAGE_ROOTS (the generated orbitkv-sglang source root) and
ORBITKV_FIXTURES (spec/fixtures/sglang-hooks). Expectations come from the package's own
contract data, never from hard-coded contract ids.
"""

import functools
import importlib
import io
import os
import sys
import unittest
from contextlib import redirect_stderr

sys.path[:0] = [os.environ["ORBITKV_FIXTURES"]] + os.environ["ORBITKV_PACKAGE_ROOTS"].split(os.pathsep)

from orbitkv_sglang import _data, hooks, manager, plugin  # noqa: E402

HOOKS = _data.DATA["template"]["hooks"]
ALWAYS = [h for h in HOOKS if h["activation"]["mode"] == "always"]
OPT_IN = [h for h in HOOKS if h["activation"]["mode"] == "opt-in"]
SELECTED = ["launch_server", _data.DATA["template"]["selectFlag"], _data.DATA["template"]["backendName"], "--enable-unified-cache-external-linker"]


def fresh_engine():
    """Forget every fixture module, so each test patches pristine targets."""
    for name in [n for n in sys.modules if n == "sglang" or n.startswith("sglang.")]:
        del sys.modules[name]


def owner_and_name(target):
    owner, name, _value = hooks.resolve_target(target)
    return owner, name


class InstallerTest(unittest.TestCase):
    def setUp(self):
        fresh_engine()

    def rejection(self, environ=None):
        with self.assertRaises(hooks.HookRejection) as caught:
            hooks.install(environ or {})
        return caught.exception

    def test_installs_every_always_hook_and_patches_it(self):
        originals = {h["id"]: hooks.resolve_target(h["target"])[2] for h in ALWAYS}
        installed = hooks.install({})
        self.assertEqual(installed, [h["id"] for h in ALWAYS])
        self.assertTrue({"BEFORE", "AROUND"} <= {h["hookType"] for h in ALWAYS}, "the registry keeps BEFORE and AROUND hooks")
        for hook in ALWAYS:
            current = hooks.resolve_target(hook["target"])[2]
            self.assertIsNot(current, originals[hook["id"]], hook["id"])
            self.assertIs(current.__wrapped__, originals[hook["id"]], hook["id"])

    def test_hook_bodies_pass_through_when_orbitkv_is_not_selected(self):
        hooks.install({})
        from sglang.srt.managers.schedule_policy import PrefillAdder
        from sglang.srt.managers.tp_worker import TpModelWorker

        self.assertEqual(PrefillAdder().add_one_req("r1", False, 1), ("admitted", "r1"))
        worker = TpModelWorker()
        self.assertEqual(worker.init_cuda_graphs(), "captured")
        self.assertTrue(worker.captured)

    def test_hook_bodies_reach_the_manager_when_selected(self):
        hooks.install({})
        from sglang.srt.managers.schedule_policy import PrefillAdder

        saved = sys.argv
        sys.argv = SELECTED
        try:
            with self.assertRaises(manager.ManagerNotReachable) as caught:
                PrefillAdder().add_one_req("r1", False, 1)
        finally:
            sys.argv = saved
        self.assertIn("Manager not reachable", str(caught.exception))

    def test_opt_in_hooks_install_only_with_their_switch(self):
        self.assertTrue(OPT_IN, "the registry has an opt-in hook")
        for hook in OPT_IN:
            switch = hook["activation"]["switches"][0]
            fresh_engine()
            self.assertNotIn(hook["id"], hooks.install({switch["env"]: switch["value"] + "x"}))
            fresh_engine()
            self.assertIn(hook["id"], hooks.install({switch["env"]: switch["value"]}))
            current = hooks.resolve_target(hook["target"])[2]
            self.assertTrue(hasattr(current, "__wrapped__"))

    def test_missing_target_is_a_named_rejection(self):
        hook = ALWAYS[-1]
        owner, name = owner_and_name(hook["target"])
        delattr(owner, name)
        error = self.rejection()
        self.assertEqual((error.hook, error.problem), (hook["id"], "target-missing"))

    def test_missing_module_is_a_named_rejection(self):
        hook = ALWAYS[0]
        module = hook["target"].rsplit(".", 2)[0]
        sys.modules[module] = None  # import of this module now fails
        error = self.rejection()
        self.assertEqual((error.hook, error.problem), (hook["id"], "target-missing"))

    def test_not_callable_target_is_a_named_rejection(self):
        hook = ALWAYS[0]
        owner, name = owner_and_name(hook["target"])
        setattr(owner, name, 42)
        error = self.rejection()
        self.assertEqual((error.hook, error.problem), (hook["id"], "target-not-callable"))

    def test_changed_signature_is_a_named_rejection_with_the_diff(self):
        hook = ALWAYS[-1]
        owner, name = owner_and_name(hook["target"])

        def changed(self, req, renamed_flag):
            return None

        setattr(owner, name, changed)
        error = self.rejection()
        self.assertEqual((error.hook, error.problem), (hook["id"], "signature-changed"))
        self.assertIn(hook["fingerprint"], str(error))
        self.assertIn("self:pk,req:pk,renamed_flag:pk", str(error))
        self.assertIn("new renamed_flag", str(error))
        self.assertIn("missing ", str(error))

    def test_signature_diff_names_each_parameter(self):
        self.assertEqual(hooks.signature_diff("self:pk,req:pk,x:pk=", "self:pk,req:ko,y:pk"), "missing x; new y; changed req pk -> ko")
        self.assertEqual(hooks.signature_diff("a:pk,b:pk", "b:pk,a:pk"), "reordered")
        self.assertEqual(hooks.signature_diff("async a:pk", "a:pk"), "async differs")

    def test_already_patched_target_is_a_named_rejection(self):
        hook = ALWAYS[0]
        owner, name = owner_and_name(hook["target"])
        original = getattr(owner, name)

        @functools.wraps(original)
        def someone_elses_patch(*args, **kwargs):
            return original(*args, **kwargs)

        setattr(owner, name, someone_elses_patch)
        error = self.rejection()
        self.assertEqual((error.hook, error.problem), (hook["id"], "target-already-patched"))

    def test_silently_dropped_hook_is_a_named_rejection(self):
        registry = importlib.import_module(_data.DATA["template"]["hookRegistry"]["module"])
        apply = registry.apply_hooks

        def apply_dropping_around():
            registry.HookRegistry._hooks[:] = [h for h in registry.HookRegistry._hooks if h[2] is not registry.HookType.AROUND]
            apply()

        registry.apply_hooks = apply_dropping_around
        dropped = next(h for h in ALWAYS if h["hookType"] == "AROUND")
        error = self.rejection()
        self.assertEqual((error.hook, error.problem), (dropped["id"], "hook-not-applied"))

    def test_registry_refusing_a_hook_is_a_named_rejection(self):
        registry = importlib.import_module(_data.DATA["template"]["hookRegistry"]["module"])
        refused = next(h for h in ALWAYS if h["hookType"] == "AROUND")

        def register(target, hook, hook_type):
            if hook_type is registry.HookType.AROUND:
                raise ValueError("AROUND is not supported here")

        registry.HookRegistry.register = staticmethod(register)
        error = self.rejection()
        self.assertEqual((error.hook, error.problem), (refused["id"], "hook-registry-refused"))

    def test_engine_version_must_match_the_pin(self):
        importlib.import_module("sglang").__version__ = "0.0.1"
        error = self.rejection()
        self.assertEqual(error.problem, "engine-version")

    def test_rejection_names_contract_instead_and_removal_gate(self):
        hook = ALWAYS[0]
        owner, name = owner_and_name(hook["target"])
        delattr(owner, name)
        text = str(self.rejection())
        self.assertIn(hook["id"], text)
        self.assertIn("Instead:", text)
        self.assertIn(_data.DATA["engine"]["contract"], text)
        self.assertIn("Removal gate:", text)
        for step in hook["gate"]:
            for gate in step["gates"]:
                self.assertIn(gate, text)


class PluginTest(unittest.TestCase):
    def setUp(self):
        fresh_engine()

    def test_not_selected_returns_without_importing_the_engine(self):
        self.assertIsNone(plugin.register(argv=["launch_server", "--model-path", "m"], environ={}))
        self.assertNotIn("sglang", sys.modules)

    def test_selected_registers_the_backend_and_installs_the_hooks(self):
        self.assertEqual(plugin.register(argv=SELECTED, environ={}), [h["id"] for h in ALWAYS])
        backends = importlib.import_module(_data.DATA["template"]["radixBackend"]["module"]).BACKENDS
        self.assertIn(_data.DATA["template"]["backendName"], backends)

    def run_register(self, argv):
        saved = sys.argv
        sys.argv = argv
        try:
            with redirect_stderr(io.StringIO()), self.assertRaises(SystemExit) as caught:
                plugin.register(argv=argv, environ={})
        finally:
            sys.argv = saved
        return str(caught.exception.code)

    def test_selected_hook_failure_stops_the_process(self):
        hook = ALWAYS[0]
        owner, name = owner_and_name(hook["target"])
        delattr(owner, name)
        self.assertIn(hook["id"], self.run_register(SELECTED))

    def test_selected_rejected_profile_stops_the_process_before_any_hook(self):
        text = self.run_register([a for a in SELECTED if a != "--enable-unified-cache-external-linker"])
        rejected = [r for r in _data.DATA["rejections"] if "external" in r["message"] and "linker" in r["message"]]
        self.assertTrue(rejected)
        self.assertIn(rejected[0]["id"], text)
        self.assertEqual(importlib.import_module(_data.DATA["template"]["radixBackend"]["module"]).BACKENDS, {})

    def test_factory_rejects_the_build_context_then_needs_the_manager(self):
        saved = sys.argv
        sys.argv = SELECTED
        try:
            plugin.register(argv=SELECTED, environ={})
            registry = importlib.import_module(_data.DATA["template"]["radixBackend"]["module"])
            factory = registry.BACKENDS[_data.DATA["template"]["backendName"]]
            with redirect_stderr(io.StringIO()), self.assertRaises(SystemExit) as dsa:
                factory(registry.TreeCacheBuildContext(is_dsa=True))
            with redirect_stderr(io.StringIO()), self.assertRaises(SystemExit) as unreachable:
                factory(registry.TreeCacheBuildContext())
        finally:
            sys.argv = saved
        self.assertIn("DSA", str(dsa.exception.code))
        self.assertIn("Manager not reachable", str(unreachable.exception.code))


if __name__ == "__main__":
    unittest.main()
