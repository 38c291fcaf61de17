"""One TP rank of the stand-in server, driven through a scenario (the conformance driver).

    python3 -m sglang.srt.entrypoints.standin_rank SCENARIO.json

The process does what a rank of `sglang serve` does, in the engine's order: plugins load (hooks
applied once), the worker captures its graphs, the tree cache is built by the selected radix
backend's factory (the adapter's linker attached), then the scheduler runs rounds: admission
(match, which reaches the linker's lookup; add_one_req), load (start_layer_wise_loading before
the forward, per-layer waits in it), offload (write-through after it), and abort. The ranks of
one run meet only in collectives (sglang.srt.distributed).

Scenario: {"server_args": {...}, "geometry": {pages, page_size, layers, page_bytes},
"capture_before_plugins": bool, "delay_first_round_s": float, "phases": [{"submit": [[rid,
tokens]]} | {"run": {"max_rounds": N}} | {"abort_during_load": rid} | {"abort": rid}]}.
Prints one line RESULT=<json>: the scheduler log, the tree's events, and for each request the
sha256 of each of its pages at each layer.
"""

import hashlib
import json
import sys
import time

from sglang.srt.distributed import group_from_env
from sglang.srt.entrypoints.launch import build_tree_cache
from sglang.srt.managers.scheduler import Scheduler
from sglang.srt.managers.schedule_batch import Req
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.model_runner import ModelRunner
from sglang.srt.plugins import load_plugins
from sglang.srt.server_args import ServerArgs


def page_digests(pool, pages):
    return [[hashlib.sha256(bytes(pool.page(layer, p))).hexdigest() for layer in range(pool.layer_num)] for p in pages]


def main(path):
    with open(path, encoding="utf-8") as handle:
        scenario = json.load(handle)
    server_args = ServerArgs(**scenario["server_args"])
    g = scenario.get("geometry", {})
    runner = ModelRunner(g.get("pages", 64), g.get("page_size", 4), g.get("layers", 3), g.get("page_bytes", 4096))
    worker = TpModelWorker(server_args, model_runner=runner)
    if scenario.get("capture_before_plugins"):
        worker.init_cuda_graphs()
        load_plugins()
    else:
        load_plugins()
        worker.init_cuda_graphs()
    group = group_from_env()
    cache = build_tree_cache(server_args, worker, group)
    scheduler = Scheduler(cache, runner)
    reqs = {}
    delay = scenario.get("delay_first_round_s", 0)
    for phase in scenario["phases"]:
        if "submit" in phase:
            for rid, tokens in phase["submit"]:
                req = Req(rid, tokens)
                reqs[rid] = req
                scheduler._add_request_to_queue(req)
        elif "run" in phase:
            if delay:
                time.sleep(delay)
                delay = 0
            idle = scheduler.run_until_idle(phase["run"].get("max_rounds", 200))
            scheduler.log.append(("idle", idle, scheduler.round))
        elif "abort_during_load" in phase:
            scheduler.abort_during_load(phase["abort_during_load"])
        elif "abort" in phase:
            scheduler.abort_request(phase["abort"])
    pool = runner.token_to_kv_pool
    digests = {rid: page_digests(pool, r.prefix_pages + r.new_pages) for rid, r in reqs.items() if r.finished}
    cache.close()
    group.close()
    sys.stdout.write("RESULT=" + json.dumps({"log": scheduler.log, "events": cache.events, "pages": digests, "collectives": group.calls}) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1])
