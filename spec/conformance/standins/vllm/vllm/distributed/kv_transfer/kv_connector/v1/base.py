"""KVConnectorBase_V1: the constructor requires kv_cache_config; the scheduler and worker
methods are abstract."""

import abc
import enum


class KVConnectorRole(enum.Enum):
    SCHEDULER = 0
    WORKER = 1


class KVConnectorBase_V1(abc.ABC):
    def __init__(self, vllm_config, role, kv_cache_config):
        self._vllm_config = vllm_config
        self._role = role
        self._kv_cache_config = kv_cache_config

    @abc.abstractmethod
    def start_load_kv(self, forward_context, **kwargs): ...

    @abc.abstractmethod
    def wait_for_layer_load(self, layer_name): ...

    @abc.abstractmethod
    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs): ...

    @abc.abstractmethod
    def wait_for_save(self): ...

    @abc.abstractmethod
    def get_num_new_matched_tokens(self, request, num_computed_tokens): ...

    @abc.abstractmethod
    def update_state_after_alloc(self, request, blocks, num_external_tokens): ...

    @abc.abstractmethod
    def build_connector_meta(self, scheduler_output): ...
