"""What a server process does with the adapters, in the engine's order: plugins load (hooks
applied once, after all), the worker captures graphs (a draft worker without decode graphs),
then the cache is built from the live server arguments (a radix backend factory with a
TreeCacheBuildContext, or a HiCache storage backend), then requests are queued and admitted.
`sglang serve ARGS` and Engine(**kwargs) reach the same launch."""

import json
import sys

from sglang.srt.managers.scheduler import Scheduler
from sglang.srt.managers.schedule_policy import PrefillAdder
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.plugins import load_plugins
from sglang.srt.server_args import ServerArgs, prepare_server_args


def launch(server_args, context_fields=None, requests=2):
    load_plugins()
    worker = TpModelWorker(server_args)
    worker.init_cuda_graphs()
    if server_args.speculative_algorithm:
        TpModelWorker(server_args, is_draft_worker=True).init_cuda_graphs(capture_decode_cuda_graph=False)
    cache = None
    if server_args.radix_cache_backend:
        from sglang.srt.mem_cache.registry import TreeCacheBuildContext, create_tree_cache

        fields = {"enable_hierarchical_cache": server_args.enable_hierarchical_cache, "disable_radix_cache": server_args.disable_radix_cache}
        fields.update(context_fields or {})
        cache = create_tree_cache(TreeCacheBuildContext(server_args=server_args, tp_worker=worker, **fields))
    elif server_args.enable_hierarchical_cache and server_args.hicache_storage_backend:
        from sglang.srt.mem_cache.hicache_storage import HiCacheStorageConfig
        from sglang.srt.mem_cache.storage.backend_factory import StorageBackendFactory

        extra = json.loads(server_args.hicache_storage_backend_extra_config) if server_args.hicache_storage_backend_extra_config else None
        config = HiCacheStorageConfig(tp_rank=0, tp_size=1, is_mla_model=bool((context_fields or {}).get("is_mla_model")), is_page_first_layout=False, model_name=server_args.model_path, extra_config=extra)
        cache = StorageBackendFactory.create_backend(server_args.hicache_storage_backend, config, None)
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
