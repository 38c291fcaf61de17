"""The model runner of the stand-in: a KV pool, graph capture and a forward whose every layer
reads the prefix pages and writes the new ones.

Facts reproduced (model_executor/model_runner.py, ModelRunner.init_cuda_graphs(self,
capture_decode_cuda_graph=True), read, not copied): capture builds the eager runner and the
prefill and decode graph runners once, at start-up, after the memory pool and before the tree
cache exists (Scheduler.init_model_worker, then the cache is built). A captured graph replays
exactly what was recorded: a wait that is not captured is never made, and a wait captured on one
object keeps waiting on that object (FACTS: a captured CUDA graph honours only waits recorded
at capture; a later signal needs a captured stream wait on a stable mapped flag).

The stand-in's "graph" records the KV pool's layer counter at capture; a replay waits on that
object per layer, whatever is registered later. The KV of a page is a deterministic function of
its layer and the tokens up to it, so a forward can check every prefix page it reads.
"""

import hashlib

from ..mem_cache.memory_pool import MHATokenToKVPool, TokenToKVPoolAllocator
from ..mem_cache.utils import get_storage_hash_str


def page_kv(layer, page_hash, page_bytes):
    """The KV bytes the model writes for one page at one layer."""
    out = bytearray()
    seed = hashlib.sha256(layer.to_bytes(4, "little") + bytes.fromhex(page_hash)).digest()
    while len(out) < page_bytes:
        seed = hashlib.sha256(seed).digest()
        out += seed
    return bytes(out[:page_bytes])


class CapturedGraph:
    def __init__(self, counter):
        self.counter = counter

    def wait(self, layer):
        if self.counter is not None:
            self.counter.wait_until(layer)


class ModelRunner:
    def __init__(self, pages=64, page_size=4, layer_num=3, page_bytes=4096):
        self.page_size = page_size
        self.token_to_kv_pool = MHATokenToKVPool(pages, page_size, layer_num, page_bytes)
        self.token_to_kv_pool_allocator = TokenToKVPoolAllocator(self.token_to_kv_pool)
        self.graph = None
        self.captures = 0

    def init_cuda_graphs(self, capture_decode_cuda_graph=True):
        self.graph = CapturedGraph(self.token_to_kv_pool.layer_transfer_counter)
        self.captures += 1

    def forward(self, reqs, consumer_index):
        """Every layer: wait (as captured), check each request's prefix pages, write its new pages.
        Returns {rid: [layer indices whose prefix bytes were wrong]}."""
        pool = self.token_to_kv_pool
        counter = self.graph.counter if self.graph else None
        if counter is not None and consumer_index >= 0:
            counter.set_consumer(consumer_index)
        wrong = {r.rid: [] for r in reqs}
        for layer in range(pool.layer_num):
            if self.graph is not None and consumer_index >= 0:
                self.graph.wait(layer)
            for r in reqs:
                hashes = get_storage_hash_str(r.fill_ids, None, self.page_size)
                for i, page in enumerate(r.prefix_pages):
                    if bytes(pool.page(layer, page)) != page_kv(layer, hashes[i], pool.page_bytes):
                        wrong[r.rid].append(layer)
                        break
                for i, page in enumerate(r.new_pages):
                    pool.write_page(layer, page, page_kv(layer, hashes[len(r.prefix_pages) + i], pool.page_bytes))
        return wrong
