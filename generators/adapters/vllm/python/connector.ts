/** The generated vLLM adapter's `connector.py` (fixed text; every contract-derived value comes from `_data`). */
export const CONNECTOR_PY = String.raw`"""The vLLM connector: KVConnectorBase_V1 with its scheduler and worker halves.

Imported by vLLM only when the connector is selected (it imports vLLM, and so torch). vLLM's
factory builds it as cls(vllm_config, role, kv_cache_config), once in the scheduler process
(role SCHEDULER) and once in every worker (role WORKER). The constructor evaluates the
rejection contracts on the live objects first, with the same path convention as a preflight
profile (roots vllm_config and kv_cache_config; any other first segment is an attribute of
vllm_config): a rejected profile stops the process (logged once) before any connection is
opened. Then the role's half connects to the Manager (one connection per process and role)
and every consumed method runs on that half: scheduler_half for lookups, allocation, metadata
and finish; worker_half for pages, loads, layer waits, saves and transfer results.

The cache is best effort (requires_kv_delivery comes from the interface contract's delivery
mode): a missed, failed or aborted load is recomputed by vLLM, a failed save is a future miss.
"""

import importlib

from . import _client, _data, kv_layout, manager, rejections, stop
from .scheduler_half import SchedulerHalf
from .worker_half import WorkerHalf

SCHEDULER_METHODS = ("get_num_new_matched_tokens", "update_state_after_alloc", "build_connector_meta", "update_connector_output",
                     "request_finished", "take_events", "reset_cache")
WORKER_METHODS = ("register_kv_caches", "handle_preemptions", "start_load_kv", "wait_for_layer_load", "save_kv_layer", "wait_for_save",
                  "get_finished", "get_transfer_results", "get_block_ids_with_load_errors", "shutdown")


def live_profile(vllm_config: object, kv_cache_config: object, environ: "dict | None" = None) -> dict:
    """The rejection checks' profile, read from the objects vLLM hands the connector."""
    return rejections.live_profile({"vllm_config": vllm_config, "kv_cache_config": kv_cache_config}, environ)


def _role_name(role: object) -> str:
    return str(getattr(role, "name", role)).lower()


def _symbol(where: "dict | None"):
    if not where:
        return None
    return getattr(importlib.import_module(where["module"]), where["name"], None)


def _metadata_class(base_module):
    parent = getattr(base_module, "KVConnectorMetadata", object)

    class ConnectorMetadata(parent):
        """One step's plan from the scheduler half to the workers (plain data, picklable)."""

        def __init__(self, loads, saves, preempted, finished):
            self.loads = loads
            self.saves = saves
            self.preempted = preempted
            self.finished = finished

        def __repr__(self):
            return "ConnectorMetadata(loads=%d, saves=%d, preempted=%d)" % (len(self.loads), len(self.saves), len(self.preempted))

    ConnectorMetadata.__module__ = __name__
    return ConnectorMetadata


def _register(worker, kv_caches):
    """The worker's pages for vLLM's KV tensors; a layout it cannot serve stops the engine, named."""
    try:
        worker.register_kv_caches(kv_caches)
    except (ValueError, TypeError, _client.ManagerError) as error:
        stop.stop(stop.failure_text("vLLM connector KV registration", error), error)


def _methods(spec, results_class):
    def half(self, role):
        if self._adapter_role != role:
            raise RuntimeError(type(self).__name__ + " was built for the " + self._adapter_role + " role, not " + role)
        return self._adapter_half

    def meta(self):
        return self._get_connector_metadata()

    body = {
        "get_num_new_matched_tokens": lambda self, request, num_computed_tokens: half(self, "scheduler").get_num_new_matched_tokens(request, num_computed_tokens),
        "update_state_after_alloc": lambda self, request, blocks, num_external_tokens: half(self, "scheduler").update_state_after_alloc(request, blocks, num_external_tokens),
        "build_connector_meta": lambda self, scheduler_output: half(self, "scheduler").build_connector_meta(scheduler_output),
        "update_connector_output": lambda self, connector_output: half(self, "scheduler").update_connector_output(connector_output),
        "request_finished": lambda self, request, block_ids: half(self, "scheduler").request_finished(request, block_ids),
        "take_events": lambda self: half(self, "scheduler").take_events(),
        "reset_cache": lambda self: half(self, "scheduler").reset_cache(),
        "register_kv_caches": lambda self, kv_caches: _register(half(self, "worker"), kv_caches),
        "handle_preemptions": lambda self, kv_connector_metadata: half(self, "worker").handle_preemptions(kv_connector_metadata),
        "start_load_kv": lambda self, forward_context, **kwargs: half(self, "worker").start_load_kv(meta(self), forward_context),
        "wait_for_layer_load": lambda self, layer_name: half(self, "worker").wait_for_layer_load(layer_name),
        "save_kv_layer": lambda self, layer_name, kv_layer, attn_metadata, **kwargs: half(self, "worker").save_kv_layer(meta(self), layer_name, kv_layer, attn_metadata),
        "wait_for_save": lambda self: half(self, "worker").wait_for_save(meta(self)),
        "get_finished": lambda self, finished_req_ids: half(self, "worker").transfer_results(finished_req_ids)[:2],
        "get_block_ids_with_load_errors": lambda self: half(self, "worker").get_block_ids_with_load_errors(),
        "shutdown": lambda self: self._adapter_half.shutdown() if self._adapter_role == "worker" else None,
    }
    if results_class is not None:
        def get_transfer_results(self, finished_req_ids):
            sending, recving, failed = half(self, "worker").transfer_results(finished_req_ids)
            return results_class(finished_sending=sending, finished_recving=recving, failed_recving=failed)

        body["get_transfer_results"] = get_transfer_results
    for name, function in body.items():
        function.__name__ = name
        function.__qualname__ = spec["className"] + "." + name
    return body


def _connector_class(spec: dict) -> type:
    base_module = importlib.import_module(spec["base"]["module"])
    base = getattr(base_module, spec["base"]["name"])
    results_class = _symbol(spec.get("transferResults"))
    metadata_class = _metadata_class(base_module)
    # What a failing client call raises once connected: the halves degrade to a miss or a recompute.
    errors = (_client.ManagerError,)

    def __init__(self, vllm_config, role, kv_cache_config=None):
        # Rejections first: a rejected profile never opens a connection.
        try:
            profile = live_profile(vllm_config, kv_cache_config)
            self._adapter_verdict = rejections.check(profile)
            base.__init__(self, vllm_config, role, kv_cache_config)
            self._adapter_role = _role_name(role)
            geometry = kv_layout.Geometry(vllm_config, kv_cache_config)
            options = kv_layout.options(vllm_config)
            client = manager.connect(self._adapter_role, profile)
            if self._adapter_role == "scheduler":
                self._adapter_half = SchedulerHalf(client, geometry, options, metadata_class, errors)
            else:
                self._adapter_half = WorkerHalf(client, geometry, options, errors)
        except (rejections.AdapterRejection, manager.ManagerNotReachable, manager.ManagerRefused) as error:
            stop.stop(str(error), error)
        except (ValueError, TypeError, AttributeError) as error:
            stop.stop(stop.failure_text("vLLM connector set-up", error), error)

    requires = spec["requiresKvDelivery"]
    body = {"__init__": __init__, "requires_kv_delivery": property(lambda self: requires), "__module__": __name__}
    wanted = set(spec["methods"]) | set(getattr(base, "__abstractmethods__", ()))
    for name, function in _methods(spec, results_class).items():
        if name in wanted or hasattr(base, name):
            body[name] = function
    return type(base)(spec["className"], (base,), body)


for _spec in _data.DATA["template"]["connectors"]:
    globals()[_spec["className"]] = _connector_class(_spec)
`;
