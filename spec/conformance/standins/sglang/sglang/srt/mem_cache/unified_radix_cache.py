"""The native Unified radix tree of the stand-in: device pages keyed by page hash, locks, the
external linker attached through init_cache_linker.

Facts reproduced (mem_cache/unified_radix_cache.py, read, not copied):
- init_cache_linker(cache_linker) wraps the linker (UnifiedCacheLinkerWrapper) and the tree's KV
  pool then waits on the linker's layer_done_counter; the tree is built after graph capture.
- match_prefix finds the device-cached prefix, then asks the linker for the tail (the wrapper
  intersects the ranks' answers); init_load_back queues the load of a hit; a write-through
  offloads each node the forward completed (threshold 1 with a linker).
- release_aborted_request(rid) is reached from the scheduler's abort (tree_cache.finish(ABORT) on
  recent code) and releases the request's linker work (UnifiedCacheLinkerWrapper.release_request).
- Nodes are pinned (inc_lock_ref / dec_lock_ref) while a load or an offload may still touch their
  pages; only an unpinned node's pages return to the allocator.
`events` records, in order, what a driver checks: loads drained, offloads committed, pages freed.
"""

from .unified_cache.unified_cache_linker import UnifiedCacheLinkerWrapper
from .utils import get_storage_hash_str


class Node:
    def __init__(self, hashes, pages, loading):
        self.hashes, self.pages, self.loading = list(hashes), list(pages), loading
        self.lock_ref = 0
        self.stored = False
        self.doomed = None


class UnifiedRadixCache:
    def __init__(self, params):
        self.params = params
        self.page_size = params.page_size
        self.allocator = params.token_to_kv_pool_allocator
        self.kv_pool = self.allocator.get_kvcache()
        self.tp_group = params.tp_group
        self.tp_world_size = params.tp_size
        self.by_hash = {}
        self.nodes_by_rid = {}
        self.linker = None
        self.events = []

    def init_cache_linker(self, cache_linker):
        self.linker = UnifiedCacheLinkerWrapper(self, cache_linker)
        self.kv_pool.register_layer_transfer_counter(self.linker.layer_done_counter)

    def _all_reduce_attn_groups(self, values, op):
        return self.tp_group.all_reduce(values, op)

    def page_hashes(self, token_ids):
        return get_storage_hash_str(token_ids, None, self.page_size)

    def allocate(self, count):
        return self.allocator.alloc(count)

    def insert_pages(self, hashes, pages, loading=False, rid=None):
        node = Node(hashes, pages, loading)
        for h, p in zip(hashes, pages):
            self.by_hash[h] = (node, p)
        if rid is not None:
            self.nodes_by_rid.setdefault(rid, []).append(node)
        return node

    def inc_lock_ref(self, node):
        node.lock_ref += 1

    def dec_lock_ref(self, node):
        assert node.lock_ref > 0, "dec_lock_ref below zero"
        node.lock_ref -= 1
        if node.lock_ref == 0 and node.doomed is not None:
            self._free(node)

    def _free(self, node):
        for h in node.hashes:
            if self.by_hash.get(h, (None,))[0] is node:
                del self.by_hash[h]
        self.allocator.free(node.pages, node.doomed)
        self.events.append(("freed", node.doomed, list(node.pages)))
        node.pages = []

    def match_prefix(self, req):
        """Sets req.prefix_pages (device hit) and req.host_hit_length (linker hit, all ranks agreeing)."""
        hashes = self.page_hashes(req.fill_ids)
        device = []
        for h in hashes:
            found = self.by_hash.get(h)
            if found is None or found[0].loading:
                break
            device.append(found[1])
        req.prefix_pages = device
        req.host_hit_length = 0
        if self.linker is not None and len(device) < len(hashes):
            req.host_hit_length = self.linker.match(req, len(device), req.fill_ids)
        return req.host_hit_length

    def init_load_back(self, req):
        loaded = self.linker.load_back(req)
        if loaded is None:
            return None
        pages, node = loaded
        if pages:
            self.nodes_by_rid.setdefault(req.rid, []).append(node)
        return pages, node

    def cache_finished_pages(self, req, hashes, pages):
        """After a forward: the request's new pages join the tree and are written through."""
        node = self.insert_pages(hashes, pages, rid=req.rid)
        if self.linker is not None:
            self.linker.offload_node(node)
        return node

    def check_completions(self):
        drained = self.linker.drain_loads(self.linker.num_completed_loads()) if self.linker else []
        committed = self.linker.commit_offloads() if self.linker else []
        for ok in committed:
            self.events.append(("offloaded", ok))
        return drained, committed

    def release_aborted_request(self, rid):
        if self.linker is not None:
            self.linker.release_request(rid)
        for node in self.nodes_by_rid.pop(rid, []):
            node.doomed = "aborted " + rid
            if node.lock_ref == 0:
                self._free(node)

    def reset(self):
        if self.linker is not None:
            self.linker.reset()

    def close(self):
        if self.linker is not None:
            self.linker.close()
