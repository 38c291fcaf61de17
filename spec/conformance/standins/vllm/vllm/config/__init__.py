"""The config objects a connector receives (attributes, not mappings): VllmConfig with
model_config, cache_config (block_size, cache_dtype), parallel_config (tensor_parallel_size),
kv_transfer_config; KVCacheConfig (num_blocks, kv_cache_groups of KVCacheGroupSpec(layer_names,
kv_cache_spec)) and an attention spec with block_size, page_size_bytes and dtype, as in vLLM's
config/ and v1/kv_cache_interface.py."""

from types import SimpleNamespace


class KVTransferConfig(SimpleNamespace):
    pass


class VllmConfig(SimpleNamespace):
    def __init__(self, **fields):
        defaults = dict(model_config=SimpleNamespace(model="stand-in/model", is_hybrid=False, is_attention_free=False, hf_text_config=SimpleNamespace()),
                        cache_config=SimpleNamespace(mamba_cache_mode=None, block_size=16, cache_dtype="auto"), lora_config=None, speculative_config=None,
                        parallel_config=SimpleNamespace(tensor_parallel_size=1), kv_transfer_config=None, use_v2_model_runner=False)
        defaults.update(fields)
        super().__init__(**defaults)


class AttentionSpec(SimpleNamespace):
    """block_size tokens per block; page_size_bytes one layer's bytes per block (K and V)."""


class KVCacheGroupSpec(SimpleNamespace):
    pass


class KVCacheConfig(SimpleNamespace):
    pass
