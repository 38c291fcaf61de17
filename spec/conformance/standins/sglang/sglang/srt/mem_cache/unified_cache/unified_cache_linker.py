"""The Unified cache linker: the transport a backend implements, and the tree-side wrapper that
drives it.

Facts reproduced (mem_cache/unified_cache/unified_cache_linker.py, read, not copied):
- UnifiedCacheLinker has eleven abstract methods and a `layer_done_counter` attribute:
  lookup(rid, transfers) -> list[int]: every prefix length (pages, relative to the device-
    uncached tail) fully restorable, local to this rank; there is no pending answer.
  load(rid, transfers) -> bool: queue a load into the given device indices; it runs at the next
    start_layer_wise_loading(), not here.
  start_layer_wise_loading() -> int: start every queued load; return the layer counter's
    consumer index (-1: nothing queued).
  cancel_queued_load(rid) -> bool: cancel a load that has not started; True only then.
  num_completed_loads() / pop_completed_load() -> list[str]: completed load batches, oldest first.
  offload(transfers) -> bool: queue every transfer for atomic persistence.
  num_completed_offloads() / pop_completed_offload() -> bool: offload results, oldest first.
  reset() / close(): quiesce every transfer first.
- UnifiedCacheLinkerWrapper.match: hashes the device-uncached whole pages of the key (chained on
  the last device page's hash), asks lookup, and intersects the ranks' answers with an all-reduce
  MIN over a 0/1 mask (_sync_restorable_prefix); a non-zero common length becomes the request's
  host_hit_length and a hit marker for load_back.
- load_back (from PrefillAdder.add_one_req through init_load_back): inserts the tail into the
  tree, pins the inserted node and queues linker.load; a refused load raises RuntimeError.
  drain_loads unpins each rid pop_completed_load reports.
- offload_nodes (write-through after a forward): pins the node, linker.offload, and publishes
  the node as stored once its result is popped; a refused offload unpins at once.
- release_request(rid) (the abort path, release_aborted_request): drops the hit marker and unpins
  only if cancel_queued_load(rid) is True; a load already started keeps its pin until it is
  reported complete, so its device pages are never freed while it may still write them.
- reset(): linker.reset(), then every pin is dropped. close(): linker.close(), then the same.
The linker factory refuses a class that is still abstract.
"""

import abc
import inspect

from ..hicache_storage import PoolName, PoolTransfer
from ..utils import get_storage_hash_str


class UnifiedCacheLinker(abc.ABC):
    layer_done_counter = None

    def __init__(self, *args, **kwargs):
        self.args = args

    @abc.abstractmethod
    def lookup(self, rid, transfers): ...

    @abc.abstractmethod
    def load(self, rid, transfers): ...

    @abc.abstractmethod
    def start_layer_wise_loading(self): ...

    @abc.abstractmethod
    def cancel_queued_load(self, rid): ...

    @abc.abstractmethod
    def num_completed_loads(self): ...

    @abc.abstractmethod
    def pop_completed_load(self): ...

    @abc.abstractmethod
    def offload(self, transfers): ...

    @abc.abstractmethod
    def num_completed_offloads(self): ...

    @abc.abstractmethod
    def pop_completed_offload(self): ...

    @abc.abstractmethod
    def reset(self): ...

    @abc.abstractmethod
    def close(self): ...


def create_linker(cls, *args, **kwargs):
    if not (isinstance(cls, type) and issubclass(cls, UnifiedCacheLinker)):
        raise TypeError(repr(cls) + " is not a UnifiedCacheLinker")
    if inspect.isabstract(cls):
        raise TypeError(cls.__name__ + " is abstract: " + ", ".join(sorted(cls.__abstractmethods__)))
    return cls(*args, **kwargs)


class UnifiedCacheLinkerWrapper:
    """The tree-side flow over one linker (see the module docstring for the engine's order)."""

    def __init__(self, cache, cache_linker):
        self.cache = cache
        self.cache_linker = cache_linker
        self.hit_markers = {}
        self.pending_loads = {}
        self.pending_offloads = []

    @property
    def layer_done_counter(self):
        return self.cache_linker.layer_done_counter

    def match(self, req, device_pages, token_ids):
        """host_hit_length (tokens) of the device-uncached tail, and the hit marker for load_back."""
        page = self.cache.page_size
        prior = self.cache.page_hashes(token_ids)[device_pages - 1] if device_pages else None
        tail = token_ids[device_pages * page:]
        tail_hashes = get_storage_hash_str(tail, prior, page)
        if not tail_hashes:
            return 0
        restorable = self.cache_linker.lookup(req.rid, [PoolTransfer(PoolName.KV, list(tail_hashes))])
        hit_pages = self._sync_restorable_prefix(restorable, num_pages=len(tail_hashes), device_hit_pages=0)
        if hit_pages == 0:
            return 0
        self.hit_markers[req.rid] = (device_pages, list(tail_hashes[:hit_pages]))
        return hit_pages * page

    def _sync_restorable_prefix(self, restorable, *, num_pages, device_hit_pages):
        """The longest length every rank can restore: MIN over a 0/1 mask is AND."""
        mask = [0] * (num_pages + 1)
        for pages in restorable:
            if device_hit_pages < pages <= num_pages:
                mask[pages] = 1
        mask = self.cache._all_reduce_attn_groups(mask, "min")
        common = [i for i, bit in enumerate(mask) if bit]
        return common[-1] if common else 0

    def load_back(self, req):
        """(new device pages, node) for the hit marker's tail; the load is queued with the node pinned."""
        hit = self.hit_markers.pop(req.rid, None)
        if hit is None:
            return [], req.last_node
        device_pages, tail_hashes = hit
        pages = self.cache.allocate(len(tail_hashes))
        if pages is None:
            return None
        node = self.cache.insert_pages(tail_hashes, pages, loading=True)
        self.cache.inc_lock_ref(node)
        try:
            queued = self.cache_linker.load(req.rid, [PoolTransfer(PoolName.KV, list(tail_hashes), list(pages))])
        except BaseException:
            self.cache.dec_lock_ref(node)
            raise
        if not queued:
            self.cache.dec_lock_ref(node)
            raise RuntimeError("Failed to queue the linker load for rid=" + repr(req.rid) + ".")
        self.pending_loads[req.rid] = node
        return pages, node

    def offload_node(self, node):
        self.cache.inc_lock_ref(node)
        try:
            queued = self.cache_linker.offload([PoolTransfer(PoolName.KV, list(node.hashes), list(node.pages))])
        except BaseException:
            self.cache.dec_lock_ref(node)
            raise
        if not queued:
            self.cache.dec_lock_ref(node)
            return False
        self.pending_offloads.append(node)
        return True

    def num_completed_loads(self):
        return self.cache_linker.num_completed_loads()

    def drain_loads(self, count):
        drained = []
        for _ in range(count):
            for rid in self.cache_linker.pop_completed_load():
                node = self.pending_loads.pop(rid)
                node.loading = False
                self.cache.events.append(("drained", rid))
                self.cache.dec_lock_ref(node)
                drained.append(rid)
        return drained

    def commit_offloads(self):
        results = []
        for _ in range(min(self.cache_linker.num_completed_offloads(), len(self.pending_offloads))):
            node = self.pending_offloads.pop(0)
            ok = self.cache_linker.pop_completed_offload()
            node.stored = node.stored or ok
            self.cache.dec_lock_ref(node)
            results.append(ok)
        return results

    def start_layer_wise_loading(self):
        return self.cache_linker.start_layer_wise_loading()

    def release_request(self, rid):
        self.hit_markers.pop(rid, None)
        if self.cache_linker.cancel_queued_load(rid):
            node = self.pending_loads.pop(rid)
            self.cache.dec_lock_ref(node)

    def _release_pins(self):
        for node in self.pending_loads.values():
            self.cache.dec_lock_ref(node)
        self.pending_loads.clear()
        for node in self.pending_offloads:
            self.cache.dec_lock_ref(node)
        self.pending_offloads.clear()

    def reset(self):
        self.cache_linker.reset()
        self.hit_markers.clear()
        self._release_pins()

    def close(self):
        self.cache_linker.close()
        self._release_pins()
