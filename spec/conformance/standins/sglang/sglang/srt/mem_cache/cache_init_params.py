"""What the tree cache and its linker are built from (fields named as in
mem_cache/cache_init_params.py, CacheInitParams; the stand-in keeps the rank and world size of
the TP group on it, where SGLang asks its parallel state)."""

import dataclasses
from typing import Any


@dataclasses.dataclass
class CacheInitParams:
    page_size: int
    token_to_kv_pool_allocator: Any
    tp_rank: int = 0
    tp_size: int = 1
    tp_group: Any = None
    component_registry_override: Any = None
