"""The generated SGLang package (radix-backend style) driven through the stand-in SGLang: plugin
loading with hooks applied once after all plugins, `sglang serve` with a strict parser, the
Engine API and --config selection, the tree-cache factory with live server arguments, the
abstract linker base and its factory. Numbers in test names are the issue's items."""

import json
import os
import tempfile
import unittest

from harness import other_plugin, package_data, run

DATA = package_data("sglang")
T = DATA["template"]
SKIP = T.get("style") != "radix-backend"
SELECT = [T["selectors"][0]["flag"], T["selectors"][0]["value"]] if not SKIP else []
LINKER_FLAG = "--enable-unified-cache-external-linker"
PRODUCT = DATA["product"]["name"]
SOCKET_ENV = DATA["product"]["envPrefix"] + "_MANAGER_SOCKET"
BEFORE = [h for h in T.get("hooks", []) if h["hookType"] == "BEFORE" and h["activation"]["mode"] == "always"]

# A stand-in for the Manager client (the calls the linker makes, recorded; every lookup a miss),
# for the tests about plugin discipline; sglang-linker.spec.ts runs the real Manager.
FAKE_CLIENT = """
class FakeClient:
    def __init__(self, role):
        self.role = role
    def _record(self, method):
        CONNECTS.append(("call", self.role, method))
    def register_pages(self, page_bytes, pages, layers):
        self._record("register_pages")
        memory = bytearray(page_bytes * pages * layers)
        class Pages:
            def page(self, index, layer):
                start = (index * layers + layer) * page_bytes
                return memoryview(memory)[start:start + page_bytes]
        return Pages()
    def lookup(self, namespace, hashes, request, rank=0, world_size=1, deadline_ms=1000):
        self._record("lookup")
        class Ticket:
            def poll(self):
                class Result:
                    state, boundary, tiers = "miss", 0, {}
                return Result()
        return Ticket()
    def save(self, namespace, hashes, pages, request=None):
        self._record("save")
        class Save:
            def wait(self, timeout=None):
                return True
            poll = wait
        return Save()
    def restore(self, ticket, pages):
        raise AssertionError("a miss is never restored")
    def release(self, ticket):
        self._record("release")
    def cancel(self, ticket):
        self._record("cancel")
    def close(self):
        self._record("close")
    def call(self, method, args, kwargs):
        self._record(method)

def fake_client():
    manager = importlib.import_module(PKG + ".manager")
    def open_half(role):
        CONNECTS.append(("connect", role))
        return FakeClient(role)
    manager.open_half = open_half
    return manager
"""


def rejection_reading(path):
    """The id of a rejection whose predicate reads config `path` with a truthy-style test, or None."""
    def reads(node):
        if "all" in node:
            return any(reads(p) for p in node["all"])
        if "any" in node:
            return any(reads(p) for p in node["any"])
        if "not" in node:
            return False
        return node.get("config") == path and node["op"] in ("truthy", "present")
    for r in DATA["rejections"]:
        if reads(r["when"]):
            return r["id"]
    return None


SERVE = FAKE_CLIENT + """
from sglang.srt.entrypoints.launch import serve_main
sys.argv = ["sglang"] + sys.argv[1:]
fake = os.environ.get("FAKE_MANAGER") == "1"
if fake:
    fake_client()
try:
    serve_main()
except SystemExit as error:
    result(exit=error.code, connects=CONNECTS)
    raise
result(exit=0, connects=CONNECTS)
"""


@unittest.skipIf(SKIP, "the registry's SGLang adapter is not the radix-backend style")
class SglangRadixConformance(unittest.TestCase):
    def test_01_serve_subcommand_starts_and_reaches_the_manager_named(self):
        status, found, err = run("sglang", SERVE, ["serve", *SELECT, LINKER_FLAG])
        self.assertEqual(status, 3, err)
        self.assertIn(PRODUCT + " Manager not reachable", err)
        self.assertIn(SOCKET_ENV, err)
        self.assertNotIn("usage:", err)

    def test_01_serve_with_a_fake_manager_builds_the_cache(self):
        status, found, err = run("sglang", SERVE, ["serve", *SELECT, LINKER_FLAG], {"FAKE_MANAGER": "1"})
        self.assertEqual(status, 0, err)
        self.assertEqual(found["connects"][:2], [["connect", "linker"], ["call", "linker", "register_pages"]])
        self.assertIn(["call", "linker", "save"], found["connects"], "the launched requests were written through")

    def test_01_a_systemexit_inside_the_plugin_is_explained(self):
        code = """
rejections = importlib.import_module(PKG + ".rejections")
def strict(*args, **kwargs):
    raise SystemExit(2)
rejections.check_pin = strict
from sglang.srt.plugins import load_plugins
sys.argv = ["sglang"] + sys.argv[1:]
load_plugins()
"""
        status, found, err = run("sglang", code, ["serve", *SELECT])
        self.assertEqual(status, 3, err)
        self.assertIn(PRODUCT + " rejection", err)
        self.assertIn("SystemExit 2", err)

    def test_02_hooks_are_applied_by_load_plugins_not_by_the_plugin(self):
        code = """
from sglang.srt.plugins.hook_registry import HookRegistry
calls = []
original = HookRegistry.apply_hooks.__func__
def counting(cls):
    calls.append(1)
    return original(cls)
HookRegistry.apply_hooks = classmethod(counting)
sys.argv = ["sglang"] + sys.argv[1:]
from sglang.srt.plugins import load_plugins
load_plugins()
hooks = importlib.import_module(PKG + ".hooks")
result(applies=len(calls), verified=hooks.verify_installed())
"""
        status, found, err = run("sglang", code, ["serve", *SELECT, LINKER_FLAG])
        self.assertEqual(status, 0, err)
        self.assertEqual(found["applies"], 1)
        self.assertEqual(sorted(found["verified"]), sorted(h["id"] for h in T["hooks"] if h["activation"]["mode"] == "always"))

    def test_02_a_later_plugin_on_the_same_target_is_never_dropped_silently(self):
        target = BEFORE[0]["target"]
        site = other_plugin("sglang", "zz-other", """
from sglang.srt.plugins.hook_registry import HookRegistry, HookType
RAN = []
def mine(*args, **kwargs):
    RAN.append(1)
def register():
    HookRegistry.register(%r, mine, HookType.BEFORE, source="zz-other")
""" % target)
        status, found, err = run("sglang", SERVE + "", ["serve", *SELECT, LINKER_FLAG], {"FAKE_MANAGER": "1"}, extra_site=site)
        # Either both hooks run, or the sharing is a named rejection: never one hook silently gone.
        self.assertEqual(status, 3, err)
        self.assertIn("target-shared", err)
        self.assertIn(BEFORE[0]["id"], err)
        self.assertEqual(found["connects"], [], "hooks are verified before any Manager connection")

    def test_03_linker_has_the_whole_abstract_shape_and_the_factory_builds_it(self):
        code = FAKE_CLIENT + """
fake_client()
import inspect
from sglang.srt.mem_cache.unified_cache.unified_cache_linker import UnifiedCacheLinker, create_linker
from sglang.srt.entrypoints.launch import launch, build_tree_cache
from sglang.srt.distributed import RankGroup
from sglang.srt.server_args import ServerArgs
from sglang.srt.managers.tp_worker import TpModelWorker
sys.argv = ["sglang", "serve"]
args = ServerArgs(radix_cache_backend=%r, enable_unified_cache_external_linker=True)
cache = launch(args, requests=0)
linker_module = importlib.import_module(PKG + ".linker")
names = [l["className"] for l in DATA["template"]["linkers"]]
classes = [getattr(linker_module, n) for n in names]
own = {n: sorted(m for m in UnifiedCacheLinker.__abstractmethods__ if getattr(c, m) is not getattr(UnifiedCacheLinker, m)) for n, c in zip(names, classes)}
built = [create_linker(c, args, cache.params) for c in classes]
result(classes=[type(b).__name__ for b in built], abstract=[inspect.isabstract(c) for c in classes], own=own, attached=type(cache.linker.cache_linker).__name__)
""" % SELECT[1]
        status, found, err = run("sglang", code, env={DATA["product"]["envPrefix"] + "_SELECTED": "1"})
        self.assertEqual(status, 0, err)
        self.assertEqual(found["abstract"], [False] * len(found["classes"]))
        for name, methods in found["own"].items():
            self.assertEqual(len(methods), 11, name + " implements every abstract method itself")
        self.assertIn(found["attached"], found["classes"])

    def test_04_selection_through_a_config_file_uses_the_live_server_args(self):
        rejection = rejection_reading("server_args.enable_hierarchical_cache")
        self.assertIsNotNone(rejection)
        with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as handle:
            handle.write(SELECT[0].lstrip("-") + ": " + SELECT[1] + "\nenable-hierarchical-cache: true\n" + LINKER_FLAG.lstrip("-") + ": true\n")
        status, found, err = run("sglang", SERVE, ["serve", "--config", handle.name])
        os.unlink(handle.name)
        self.assertEqual(status, 3, err)
        self.assertIn(rejection, err)

    def test_04_selection_through_the_engine_api_uses_the_live_server_args(self):
        rejection = rejection_reading("server_args.enable_hierarchical_cache")
        code = """
from sglang.srt.entrypoints.launch import Engine
sys.argv = ["my_script.py"]
Engine(radix_cache_backend=%r, enable_hierarchical_cache=True, enable_unified_cache_external_linker=True)
""" % SELECT[1]
        status, found, err = run("sglang", code, env={DATA["product"]["envPrefix"] + "_SELECTED": "1"})
        self.assertEqual(status, 3, err)
        self.assertIn(rejection, err)
        # Without the switch the plugin stays lazy and registers nothing: the engine's own error names the backend.
        status, found, err = run("sglang", code)
        self.assertEqual(status, 1, err)
        self.assertIn("unknown radix cache backend", err)

    def test_05_nothing_connects_before_the_tree_cache_rejections(self):
        rejection = rejection_reading("tree_cache_build_context.is_dsa")
        self.assertIsNotNone(rejection)
        code = FAKE_CLIENT + """
fake_client()
from sglang.srt.entrypoints.launch import Engine
sys.argv = ["my_script.py"]
try:
    Engine(context_fields={"is_dsa": True}, radix_cache_backend=%r, enable_unified_cache_external_linker=True)
except SystemExit as error:
    result(exit=error.code, connects=CONNECTS)
    raise
""" % SELECT[1]
        status, found, err = run("sglang", code, env={DATA["product"]["envPrefix"] + "_SELECTED": "1"})
        self.assertEqual(status, 3, err)
        self.assertIn(rejection, err)
        self.assertEqual(found["connects"], [])

    def test_05_graph_capture_installs_the_completion_counter_without_the_manager(self):
        code = FAKE_CLIENT + """
fake_client()
from sglang.srt.managers import tp_worker
seen = []
original = tp_worker.TpModelWorker.init_cuda_graphs
from sglang.srt.model_executor.model_runner import ModelRunner
capture = ModelRunner.init_cuda_graphs
def spying(self, capture_decode_cuda_graph=True):
    seen.append((self.token_to_kv_pool.layer_transfer_counter is not None, list(CONNECTS)))
    return capture(self, capture_decode_cuda_graph)
ModelRunner.init_cuda_graphs = spying
from sglang.srt.entrypoints.launch import Engine
sys.argv = ["my_script.py"]
engine = Engine(radix_cache_backend=%r, enable_unified_cache_external_linker=True)
pool = engine.cache.kv_pool
result(seen=seen, same=pool.layer_transfer_counter is engine.cache.linker.layer_done_counter, captured=pool.layer_transfer_counter is engine.cache.params.token_to_kv_pool_allocator.get_kvcache().layer_transfer_counter)
""" % SELECT[1]
        status, found, err = run("sglang", code, env={DATA["product"]["envPrefix"] + "_SELECTED": "1"})
        self.assertEqual(status, 0, err)
        self.assertEqual(found["seen"], [[True, []]], "the counter is on the pool when capture runs, and nothing reached the Manager")
        self.assertTrue(found["same"], "the linker adopts the counter the captured graph waits on")

    def test_06_real_signatures_register_and_the_draft_worker_call_passes(self):
        code = FAKE_CLIENT + """
fake_client()
from sglang.srt.plugins.hook_registry import HookRegistry
seen = []
original = HookRegistry.register.__func__
def spy(cls, target, hook, hook_type=None, *, source=None):
    seen.append(source)
    return original(cls, target, hook, hook_type, source=source)
HookRegistry.register = classmethod(spy)
from sglang.srt.entrypoints.launch import launch
from sglang.srt.server_args import ServerArgs
from sglang.srt.managers.tp_worker import TpModelWorker, CALLS
sys.argv = ["sglang", "serve"]
launch(ServerArgs(radix_cache_backend=%r, enable_unified_cache_external_linker=True))
TpModelWorker(None, is_draft_worker=True).init_cuda_graphs(capture_decode_cuda_graph=False)
result(sources=seen, calls=CALLS)
""" % SELECT[1]
        status, found, err = run("sglang", code, env={DATA["product"]["envPrefix"] + "_SELECTED": "1"})
        self.assertEqual(status, 0, err)
        self.assertTrue(found["sources"] and all(s == DATA["package"]["importName"] for s in found["sources"]))
        self.assertIn(["init_cuda_graphs", True, False], found["calls"])

    def test_06_the_guard_compares_what_matters_for_the_hook_type(self):
        code = """
hooks = importlib.import_module(PKG + '.hooks')
pairs = {
    "added_default": ("self:pk", "self:pk,capture_decode_cuda_graph:pk="),
    "added_required": ("self:pk", "self:pk,extra:pk"),
    "renamed": ("self:pk,req:pk", "self:pk,request:pk"),
    "lost_default": ("self:pk,is_retracted:pk=", "self:pk,is_retracted:pk"),
    "var_kw": ("self:pk", "self:pk,kwargs:vk"),
}
result(**{kind + ":" + name: hooks.compatible(kind, *pair) for name, pair in pairs.items() for kind in ("BEFORE", "AROUND", "REPLACE")})
"""
        status, found, err = run("sglang", code)
        self.assertEqual(status, 0, err)
        for kind in ("BEFORE", "AROUND"):
            self.assertEqual([found[kind + ":" + n] for n in ("added_default", "added_required", "renamed", "lost_default", "var_kw")], [True, False, False, False, True])
        self.assertEqual([found["REPLACE:" + n] for n in ("added_default", "added_required", "renamed", "lost_default", "var_kw")], [False] * 5)

    def test_07_an_engine_decorator_is_not_someone_elses_patch(self):
        code = """
import functools
from sglang.srt.managers import scheduler
original = scheduler.Scheduler._add_request_to_queue
@functools.wraps(original)
def traced(*args, **kwargs):
    return original(*args, **kwargs)
traced.__code__ = traced.__code__.replace(co_filename=scheduler.__file__)
scheduler.Scheduler._add_request_to_queue = traced
hooks = importlib.import_module(PKG + ".hooks")
result(registered=hooks.register_all({h["activation"]["switches"][0]["env"]: h["activation"]["switches"][0]["value"] for h in DATA["template"]["hooks"] if h["activation"]["mode"] == "opt-in"}))
"""
        status, found, err = run("sglang", code)
        self.assertEqual(status, 0, err)
        self.assertEqual(len(found["registered"]), len(T["hooks"]))

    def test_07_a_replaced_target_and_a_hook_held_by_the_registry_are_rejected(self):
        target = BEFORE[0]["target"]
        for setup in (
            "owner, name, _v = hooks.resolve_target(%r)\nsetattr(owner, name, lambda self, capture_decode_cuda_graph=True: None)" % target,
            "from sglang.srt.plugins.hook_registry import HookRegistry, HookType\nHookRegistry.register(%r, lambda *a, **k: None, HookType.BEFORE)" % target,
        ):
            code = "hooks = importlib.import_module(PKG + '.hooks')\n" + setup + """
try:
    hooks.register_all({})
except hooks.HookRejection as error:
    result(hook=error.hook, problem=error.problem)
"""
            status, found, err = run("sglang", code)
            self.assertEqual(status, 0, err)
            self.assertEqual(found, {"hook": BEFORE[0]["id"], "problem": "target-already-patched"})

    def test_guards_name_a_missing_an_uncallable_and_an_incompatible_target(self):
        hook = BEFORE[0]
        for setup, problem in (
            ("delattr(owner, name)", "target-missing"),
            ("setattr(owner, name, 42)", "target-not-callable"),
            ("exec(compile('def changed(self, renamed):\\n    return None', scheduler_globals['__file__'], 'exec'), scheduler_globals)\nsetattr(owner, name, scheduler_globals['changed'])", "signature-changed"),
        ):
            code = """
hooks = importlib.import_module(PKG + '.hooks')
owner, name, _v = hooks.resolve_target(%r)
scheduler_globals = vars(sys.modules[owner.__module__]) if isinstance(owner, type) else vars(owner)
%s
try:
    hooks.register_all({})
except hooks.HookRejection as error:
    result(hook=error.hook, problem=error.problem, text=str(error))
""" % (hook["target"], setup)
            status, found, err = run("sglang", code)
            self.assertEqual(status, 0, err)
            self.assertEqual((found["hook"], found["problem"]), (hook["id"], problem))
            self.assertIn(PRODUCT + " hook rejection", found["text"])

    def test_opt_in_hooks_register_only_with_their_switch(self):
        opt_in = [h for h in T["hooks"] if h["activation"]["mode"] == "opt-in"]
        for hook in opt_in:
            switch = hook["activation"]["switches"][0]
            for value, expected in ((switch["value"] + "x", False), (switch["value"], True)):
                code = "hooks = importlib.import_module(PKG + '.hooks')\nresult(ids=hooks.register_all({%r: %r}))" % (switch["env"], value)
                status, found, err = run("sglang", code)
                self.assertEqual(status, 0, err)
                self.assertEqual(hook["id"] in found["ids"], expected)

    def test_hook_bodies_pass_through_when_not_selected(self):
        code = """
hooks = importlib.import_module(PKG + '.hooks')
hooks.register_all({})
from sglang.srt.plugins.hook_registry import HookRegistry
HookRegistry.apply_hooks()
sys.argv = ["sglang", "serve"]
from sglang.srt.managers.schedule_policy import PrefillAdder
from sglang.srt.managers.tp_worker import TpModelWorker
worker = TpModelWorker(None)
result(admitted=PrefillAdder().add_one_req("r1", False, 1).name, captured=worker.init_cuda_graphs(), counter=worker.model_runner.token_to_kv_pool.layer_transfer_counter)
"""
        status, found, err = run("sglang", code)
        self.assertEqual(status, 0, err)
        self.assertEqual(found, {"admitted": "CONTINUE", "captured": "captured", "counter": None})

    def test_12_a_rejection_is_logged_once_and_raised_once(self):
        rejection = rejection_reading("server_args.enable_hierarchical_cache")
        status, found, err = run("sglang", SERVE, ["serve", *SELECT, LINKER_FLAG, "--enable-hierarchical-cache"])
        self.assertEqual(status, 3, err)
        self.assertEqual(err.count("rejection " + rejection), 1, err)
        self.assertIn("CRITICAL " + DATA["package"]["importName"] + ": ", err)

    def test_13_one_connection_and_one_selection_per_process(self):
        code = FAKE_CLIENT + """
fake_client()
selection = importlib.import_module(PKG + ".selection")
decided = []
original = selection.decide
selection.decide = lambda *a, **k: decided.append(1) or original(*a, **k)
from sglang.srt.entrypoints.launch import launch
from sglang.srt.server_args import ServerArgs
launch(ServerArgs(radix_cache_backend=%r, enable_unified_cache_external_linker=True), requests=50)
result(connects=[c for c in CONNECTS if c[0] == "connect"], decided=len(decided))
""" % SELECT[1]
        status, found, err = run("sglang", code, ["serve", *SELECT])
        self.assertEqual(status, 0, err)
        self.assertEqual(sorted(found["connects"]), [["connect", "linker"]])
        self.assertEqual(found["decided"], 1)

    def test_unselected_imports_nothing_heavy_and_registers_nothing(self):
        code = """
from sglang.srt.plugins import load_plugins
sys.argv = ["sglang", "serve", %r, "other"]
load_plugins()
from sglang.srt.plugins.hook_registry import HookRegistry
result(applied=sorted(HookRegistry._applied), torch="torch" in sys.modules)
""" % SELECT[0]
        status, found, err = run("sglang", code)
        self.assertEqual(status, 0, err)
        self.assertEqual(found, {"applied": [], "torch": False})


if __name__ == "__main__":
    unittest.main()
