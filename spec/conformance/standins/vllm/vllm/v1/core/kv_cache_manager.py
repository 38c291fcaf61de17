"""The KV block allocator the scheduler uses, from vLLM's v1/core/kv_cache_manager.py
(KVCacheManager, KVCacheBlocks) for one attention group with prefix caching off.

Facts reproduced:
- allocate_slots(request, num_new_tokens, num_new_computed_tokens, new_computed_blocks,
  num_lookahead_tokens, num_external_computed_tokens, delay_cache_blocks) allocates blocks
  for computed + external + new tokens, or returns None when the pool is short (the caller
  preempts or stops scheduling).
- get_blocks(request_id) -> KVCacheBlocks; KVCacheBlocks.get_block_ids() -> a tuple with one
  list of block ids per group; get_block_ids(request_id) the same tuple.
- free(request) returns the request's blocks to the pool (preemption, finish).
- get_computed_blocks(request) -> (blocks, tokens) of local prefix-cache hits: always none here
  (prefix caching off), so every hit in the conformance runs comes through the connector.
"""


class KVCacheBlocks:
    def __init__(self, block_ids):
        self._ids = list(block_ids)

    def get_block_ids(self, allow_none=False):
        return (list(self._ids),)


class KVCacheManager:
    def __init__(self, num_blocks, block_size):
        self.block_size = block_size
        self.num_blocks = num_blocks
        self._free = list(range(num_blocks))
        self._owned = {}
        self.empty_kv_cache_blocks = KVCacheBlocks([])

    @property
    def num_free_blocks(self):
        return len(self._free)

    def get_computed_blocks(self, request):
        return self.empty_kv_cache_blocks, 0

    def allocate_slots(self, request, num_new_tokens, num_new_computed_tokens=0, new_computed_blocks=None,
                       num_lookahead_tokens=0, num_external_computed_tokens=0, delay_cache_blocks=False, **_ignored):
        owned = self._owned.setdefault(request.request_id, [])
        total = request.num_computed_tokens + num_new_computed_tokens + num_external_computed_tokens + num_new_tokens + num_lookahead_tokens
        needed = -(-total // self.block_size) - len(owned)
        if needed > len(self._free):
            if not owned:
                del self._owned[request.request_id]
            return None
        fresh = [self._free.pop(0) for _ in range(max(0, needed))]
        owned.extend(fresh)
        return KVCacheBlocks(fresh)

    def get_blocks(self, request_id):
        return KVCacheBlocks(self._owned.get(request_id, []))

    def get_block_ids(self, request_id):
        return (list(self._owned.get(request_id, [])),)

    def free(self, request):
        for block in reversed(self._owned.pop(request.request_id, [])):
            self._free.insert(0, block)

    def cache_blocks(self, request, num_computed_tokens):
        return None

    def owner_of(self, block_id):
        for request_id, blocks in self._owned.items():
            if block_id in blocks:
                return request_id
        return None
