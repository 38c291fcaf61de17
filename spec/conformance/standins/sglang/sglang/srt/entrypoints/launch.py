"""What a server process does with the adapters, in the engine's order: plugins load (hooks
applied once, after all), the worker captures graphs (a draft worker without decode graphs),
then the cache is built from the live server arguments (a radix backend factory with a
TreeCacheBuildContext carrying the cache parameters, or a HiCache storage backend), then
requests are queued and admitted. `sglang serve ARGS` and Engine(**kwargs) reach the same launch."""

import json
import sys

from sglang.srt.distributed import RankGroup
from sglang.srt.managers.scheduler import Scheduler
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.mem_cache.cache_init_params import CacheInitParams
from sglang.srt.plugins import load_plugins
from sglang.srt.server_args import ServerArgs, prepare_server_args


def build_tree_cache(server_args, worker, group, context_fields=None):
    from sglang.srt.mem_cache.registry import TreeCacheBuildContext, create_tree_cache

    runner = worker.model_runner
    params = CacheInitParams(page_size=runner.page_size, token_to_kv_pool_allocator=runner.token_to_kv_pool_allocator, tp_rank=group.rank, tp_size=group.size, tp_group=group)
    fields = {"enable_hierarchical_cache": server_args.enable_hierarchical_cache, "disable_radix_cache": server_args.disable_radix_cache, "tp_size": group.size, "tp_rank": group.rank, "tp_group": group}
    fields.update(context_fields or {})
    return create_tree_cache(TreeCacheBuildContext(server_args=server_args, params=params, tp_worker=worker, **fields))


def launch(server_args, context_fields=None, requests=2, group=None, worker=None):
    load_plugins()
    group = group or RankGroup()
    worker = worker or TpModelWorker(server_args)
    worker.init_cuda_graphs()
    if server_args.speculative_algorithm:
        TpModelWorker(server_args, is_draft_worker=True).init_cuda_graphs(capture_decode_cuda_graph=False)
    cache = None
    if server_args.radix_cache_backend:
        cache = build_tree_cache(server_args, worker, group, context_fields)
    elif server_args.enable_hierarchical_cache and server_args.hicache_storage_backend:
        from sglang.srt.mem_cache.hicache_storage import HiCacheStorageConfig
        from sglang.srt.mem_cache.storage.backend_factory import StorageBackendFactory

        extra = json.loads(server_args.hicache_storage_backend_extra_config) if server_args.hicache_storage_backend_extra_config else None
        config = HiCacheStorageConfig(tp_rank=0, tp_size=1, is_mla_model=bool((context_fields or {}).get("is_mla_model")), is_page_first_layout=False, model_name=server_args.model_path, extra_config=extra)
        cache = StorageBackendFactory.create_backend(server_args.hicache_storage_backend, config, None)
    if requests and cache is not None and hasattr(cache, "match_prefix"):
        scheduler = Scheduler(cache, worker.model_runner)
        for index in range(requests):
            scheduler.submit("r" + str(index), list(range(index, index + 9)))
        scheduler.run_until_idle()
    else:
        from sglang.srt.managers.schedule_policy import PrefillAdder

        scheduler = Scheduler()
        adder = PrefillAdder()
        for index in range(requests):
            scheduler._add_request_to_queue("r" + str(index))
            adder.add_one_req("r" + str(index), False, 1)
    return cache


def serve_main(argv=None):
    """`sglang serve ARGS`: the subcommand is dropped before the server arguments are parsed."""
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] != "serve":
        raise SystemExit("usage: sglang serve [server arguments]")
    return launch(prepare_server_args(argv[1:]))


class Engine:
    """The offline Engine API: server arguments from keywords; sys.argv is the caller's script."""

    def __init__(self, context_fields=None, **kwargs):
        self.cache = launch(ServerArgs(**kwargs), context_fields)
