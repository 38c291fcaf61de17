"""A stand-in for a native P/D receiver (NixlConnector's role) to put beside the cache in
MultiConnector: it claims the prompt of requests whose id starts with its configured prefix
(all but the last token, in full blocks) and, in start_load_kv, writes into their blocks exactly
the KV the stand-in model computes for those tokens, as a prefill node would have sent it.
Synchronous, never fails; claims nothing else."""

from vllm.distributed.kv_transfer.kv_connector.v1.base import KVConnectorBase_V1, KVConnectorMetadata
from vllm.v1.worker import model_runner


class _Meta(KVConnectorMetadata):
    def __init__(self, loads):
        self.loads = loads


class NativePDStandIn(KVConnectorBase_V1):
    def __init__(self, vllm_config, role, kv_cache_config):
        super().__init__(vllm_config, role, kv_cache_config)
        self._prefix = vllm_config.kv_transfer_config.kv_connector_extra_config["claim_prefix"]
        group = kv_cache_config.kv_cache_groups[0]
        self._block = group.kv_cache_spec.block_size
        self._num_blocks = kv_cache_config.num_blocks
        self._half = group.kv_cache_spec.page_size_bytes // 2
        self._layers = list(group.layer_names)
        self._pending = []
        self.claimed = []

    def get_num_new_matched_tokens(self, request, num_computed_tokens):
        if not request.request_id.startswith(self._prefix) or num_computed_tokens:
            return 0, False
        return (request.num_tokens - 1) // self._block * self._block, False

    def update_state_after_alloc(self, request, blocks, num_external_tokens):
        if num_external_tokens:
            self.claimed.append(request.request_id)
            self._pending.append((list(request.all_token_ids[:num_external_tokens]), blocks.get_block_ids()[0][: num_external_tokens // self._block]))

    def build_connector_meta(self, scheduler_output):
        meta, self._pending = _Meta(self._pending), []
        return meta

    def register_kv_caches(self, kv_caches):
        self._flat = {name: memoryview(kv).cast("B") for name, kv in kv_caches.items()}

    def start_load_kv(self, forward_context, **kwargs):
        import hashlib

        row = self._half // self._block
        for tokens, blocks in self._get_connector_metadata().loads:
            digest = b""
            for p, token in enumerate(tokens):
                digest = hashlib.sha256(digest + str(token).encode()).digest()
                block, offset = blocks[p // self._block], p % self._block
                for index, name in enumerate(self._layers):
                    for half in (0, 1):
                        start = (half * self._num_blocks + block) * self._half + offset * row
                        self._flat[name][start:start + row] = model_runner.token_kv(index, digest, half, row)

    def wait_for_layer_load(self, layer_name):
        return None

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        return None

    def wait_for_save(self):
        return None
