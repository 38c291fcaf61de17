"""The config objects a connector receives (attributes, not mappings)."""

from types import SimpleNamespace


class KVTransferConfig(SimpleNamespace):
    pass


class VllmConfig(SimpleNamespace):
    def __init__(self, **fields):
        defaults = dict(model_config=SimpleNamespace(is_hybrid=False, is_attention_free=False, hf_text_config=SimpleNamespace()),
                        cache_config=SimpleNamespace(mamba_cache_mode=None), lora_config=None, speculative_config=None,
                        kv_transfer_config=None, use_v2_model_runner=False)
        defaults.update(fields)
        super().__init__(**defaults)
