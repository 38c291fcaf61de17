"""The conformance driver for the stand-in vLLM: builds an engine (plugins, scheduler, worker,
both connectors through the factory) the way `vllm serve --kv-transfer-config` would, feeds it
requests, runs EngineCore.step until nothing is left, and reports what the scenarios check.

The call order inside a step is the engine's (vllm/v1/engine/core.py, scheduler.py,
worker/model_runner.py); this module only chooses requests, aborts and when to stop."""

import hashlib
import json
import sys
import time

from vllm.config import AttentionSpec, KVCacheConfig, KVCacheGroupSpec, KVTransferConfig, VllmConfig
from vllm.v1.engine.core import EngineCore
from vllm.v1.request import Request

BLOCK_SIZE = 16


def prompt(label, blocks, tail=5):
    """A deterministic prompt of `blocks` full blocks plus `tail` tokens."""
    digest = hashlib.sha256(label.encode()).digest()
    return [(digest[i % 32] * 7 + i) % 5000 for i in range(blocks * BLOCK_SIZE + tail)]


def build(connector, num_blocks=64, layers=4, row=64, extra=None, policy="recompute", max_tokens_budget=256):
    """An engine whose KV pages are `layers` x (2 x BLOCK_SIZE x row) bytes per block."""
    transfer = KVTransferConfig(kv_connector=connector, kv_role="kv_both", kv_load_failure_policy=policy,
                                kv_connector_extra_config=dict(extra or {}), is_kv_producer=True)
    config = VllmConfig(kv_transfer_config=transfer)
    spec = AttentionSpec(block_size=BLOCK_SIZE, page_size_bytes=2 * BLOCK_SIZE * row, dtype="bfloat16")
    kv = KVCacheConfig(num_blocks=num_blocks, kv_cache_groups=[KVCacheGroupSpec(layer_names=["model.layers.%d.self_attn.attn" % i for i in range(layers)], kv_cache_spec=spec)])
    sys.argv = ["vllm", "serve", "--kv-transfer-config", json.dumps({"kv_connector": connector})]
    return EngineCore(config, kv, max_num_scheduled_tokens=max_tokens_budget)


def build_multi(connector, native_prefix, num_blocks=64, layers=4, row=64):
    """An engine whose connector is MultiConnector over a native P/D stand-in (first) and `connector`."""
    ours = dict(kv_connector=connector, kv_role="kv_both", kv_load_failure_policy="recompute", kv_connector_extra_config={}, is_kv_producer=True)
    native = dict(kv_connector="NativePDStandIn", kv_connector_module_path="vllm_native_pd", kv_role="kv_both", kv_load_failure_policy="recompute",
                  kv_connector_extra_config={"claim_prefix": native_prefix}, is_kv_producer=False)
    transfer = KVTransferConfig(kv_connector="MultiConnector", kv_connector_module_path="vllm.distributed.kv_transfer.kv_connector.v1.multi_connector",
                                kv_role="kv_both", kv_load_failure_policy="recompute", kv_connector_extra_config={"connectors": [native, ours]}, is_kv_producer=True)
    config = VllmConfig(kv_transfer_config=transfer)
    spec = AttentionSpec(block_size=BLOCK_SIZE, page_size_bytes=2 * BLOCK_SIZE * row, dtype="bfloat16")
    kv = KVCacheConfig(num_blocks=num_blocks, kv_cache_groups=[KVCacheGroupSpec(layer_names=["model.layers.%d.self_attn.attn" % i for i in range(layers)], kv_cache_spec=spec)])
    sys.argv = ["vllm", "serve", "--kv-transfer-config", json.dumps({"kv_connector": "MultiConnector", "kv_connector_extra_config": {"connectors": [native, ours]}})]
    return EngineCore(config, kv)


def request(request_id, tokens, max_tokens=3):
    return Request(request_id, tokens, max_tokens, BLOCK_SIZE)


PACE_S = 0.001


def run(engine, max_steps=5000, on_step=None, pace_s=PACE_S):
    """Steps until the engine has nothing left (or max_steps); returns the number of steps.

    Steps are paced (a serving engine's step takes milliseconds; the stand-in's take microseconds,
    which would turn one Manager round trip into hundreds of empty steps)."""
    steps = 0
    while engine.has_work() and steps < max_steps:
        out = engine.step()
        steps += 1
        if on_step is not None:
            on_step(steps, out)
        time.sleep(pace_s)
    return steps


def completions(engine):
    """Output tokens per finished request, and per request the blocks whose KV read wrong in a step whose result vLLM kept."""
    s = engine.scheduler
    return dict(s.finished_outputs), {rid: sorted(b) for rid, b in s.corrupt_kept.items()}


def kv_digest(engine, request_id, blocks):
    """sha256 over every layer's bytes of the request's first `blocks` blocks, as the runner holds them now."""
    runner = engine.model_runner
    ids = runner.states[request_id]["blocks"][:blocks]
    digest = hashlib.sha256()
    for name in runner.layer_names:
        flat = runner.kv_caches[name].cast("B")
        for half in (0, 1):
            for block in ids:
                start = (half * runner.num_blocks + block) * runner.half_bytes
                digest.update(flat[start:start + runner.half_bytes])
    return digest.hexdigest()


def half(engine, role):
    """The connector half of one role (the adapter's own object behind vLLM's connector)."""
    connector = engine.scheduler.connector if role == "scheduler" else engine.model_runner.connector
    for child in getattr(connector, "_connectors", [connector]):
        if hasattr(child, "_adapter_half"):
            return child._adapter_half
    raise LookupError("no adapter connector in " + type(connector).__name__)
