"""Pluggable radix cache factories: register_radix_cache_backend(name, factory) refuses an empty
or already registered name; the factory receives a TreeCacheBuildContext carrying the live
server_args."""

import dataclasses
from typing import Any, Optional

_RADIX_CACHE_REGISTRY = {}


@dataclasses.dataclass
class TreeCacheBuildContext:
    server_args: Any
    params: Any = None
    is_hybrid_swa: bool = False
    is_hybrid_ssm: bool = False
    enable_hierarchical_cache: bool = False
    disable_radix_cache: bool = False
    effective_chunked_prefill_size: Optional[int] = None
    tp_worker: Any = None
    model_config: Any = None
    tp_size: int = 1
    tp_rank: int = 0
    tp_group: Any = None
    is_dsa: bool = False


def register_radix_cache_backend(name, factory):
    if not name.strip():
        raise ValueError("register_radix_cache_backend: name must be non-empty")
    if name in _RADIX_CACHE_REGISTRY:
        raise ValueError("register_radix_cache_backend: " + repr(name) + " is already registered")
    _RADIX_CACHE_REGISTRY[name] = factory


def create_tree_cache(ctx):
    name = ctx.server_args.radix_cache_backend
    if name not in _RADIX_CACHE_REGISTRY:
        raise ValueError("unknown radix cache backend " + repr(name) + "; registered: " + repr(sorted(_RADIX_CACHE_REGISTRY)))
    return _RADIX_CACHE_REGISTRY[name](ctx)
