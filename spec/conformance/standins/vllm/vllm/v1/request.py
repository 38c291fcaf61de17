"""Request as the scheduler and the connector see it, from vLLM's v1/request.py (Request,
RequestStatus) and v1/core/kv_cache_utils.py (hash_block_tokens, get_request_block_hasher,
init_none_hash).

Facts reproduced:
- request.block_hashes holds one hash per *full* block of the request's tokens, chained: a
  block's hash covers its parent's hash, its token ids and extra keys, so equal hashes mean
  an equal prefix. The hasher runs when the request is created and again whenever appended
  tokens complete a block (append_output_token_ids).
- The chain's seed (NONE_HASH) is hash_fn(PYTHONHASHSEED) when that variable is set, else 32
  random bytes per process: without a fixed PYTHONHASHSEED no hash survives an engine restart.
- Hashes are bytes (BlockHash) in the code around the pin.
- WAITING_FOR_REMOTE_KVS is the status of a request whose connector load runs asynchronously;
  is_finished() is true for the FINISHED_* statuses.
"""

import enum
import hashlib
import os


class RequestStatus(enum.IntEnum):
    WAITING = 1
    WAITING_FOR_REMOTE_KVS = 2
    RUNNING = 3
    PREEMPTED = 4
    FINISHED_STOPPED = 5
    FINISHED_LENGTH_CAPPED = 6
    FINISHED_ABORTED = 7
    FINISHED_ERROR = 8

    @staticmethod
    def is_finished(status):
        return status >= RequestStatus.FINISHED_STOPPED


def _none_hash():
    seed = os.environ.get("PYTHONHASHSEED")
    return hashlib.sha256(seed.encode()).digest() if seed is not None else os.urandom(32)


NONE_HASH = _none_hash()


def hash_block_tokens(parent, tokens):
    data = (parent or NONE_HASH) + b"|" + ",".join(str(t) for t in tokens).encode()
    return hashlib.sha256(data).digest()


class Request:
    def __init__(self, request_id, prompt_token_ids, max_tokens, block_size):
        self.request_id = request_id
        self.prompt_token_ids = list(prompt_token_ids)
        self._all_token_ids = list(prompt_token_ids)
        self.num_prompt_tokens = len(prompt_token_ids)
        self.max_tokens = max_tokens
        self.status = RequestStatus.WAITING
        self.num_computed_tokens = 0
        self.num_cached_tokens = -1
        self.num_external_computed_tokens = 0
        self.num_preemptions = 0
        self.block_hashes = []
        self._block_size = block_size
        self.update_block_hashes()

    @property
    def num_tokens(self):
        return len(self._all_token_ids)

    @property
    def num_output_tokens(self):
        return len(self._all_token_ids) - self.num_prompt_tokens

    @property
    def all_token_ids(self):
        return self._all_token_ids

    def update_block_hashes(self):
        bs = self._block_size
        while (len(self.block_hashes) + 1) * bs <= self.num_tokens:
            start = len(self.block_hashes) * bs
            parent = self.block_hashes[-1] if self.block_hashes else None
            self.block_hashes.append(hash_block_tokens(parent, self._all_token_ids[start:start + bs]))

    def append_output_token_ids(self, token_id):
        self._all_token_ids.append(token_id)
        self.update_block_hashes()

    def is_finished(self):
        return RequestStatus.is_finished(self.status)
