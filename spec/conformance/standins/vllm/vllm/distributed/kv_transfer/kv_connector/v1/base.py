"""KVConnectorBase_V1 as the conformance suite needs it, written from vLLM's
distributed/kv_transfer/kv_connector/v1/base.py (KVConnectorBase_V1) of the code around the pin.

Facts reproduced (no upstream code copied):
- __init__(vllm_config, role, kv_cache_config): kv_cache_config is required (#39832); the
  constructor refuses a config without kv_transfer_config.
- bind_connector_metadata / clear_connector_metadata store and drop the scheduler's metadata;
  _get_connector_metadata asserts it is bound.
- Abstract: start_load_kv, wait_for_layer_load, save_kv_layer, wait_for_save (worker);
  get_num_new_matched_tokens, update_state_after_alloc, build_connector_meta (scheduler).
- Defaults: register_kv_caches and handle_preemptions do nothing; get_finished returns
  (None, None); get_block_ids_with_load_errors returns an empty set; request_finished returns
  (False, None); update_connector_output does nothing; take_events is empty; reset_cache
  returns None.
- requires_kv_delivery defaults to kv_transfer_config.is_kv_producer (best-effort caches
  override it with False).
- get_transfer_results(finished_req_ids) -> KVConnectorTransferResults(finished_sending,
  finished_recving, failed_recving): newer code calls it from the runner's connector output
  instead of get_finished; the stand-in's default is built from get_finished.
"""

import abc
import enum
from dataclasses import dataclass, field


class KVConnectorRole(enum.Enum):
    SCHEDULER = 0
    WORKER = 1


class KVConnectorMetadata(abc.ABC):  # noqa: B024 - an opaque base, as in vLLM
    pass


@dataclass
class KVConnectorTransferResults:
    finished_sending: "set | None" = None
    finished_recving: "set | None" = None
    failed_recving: "set | None" = field(default=None)


class KVConnectorBase_V1(abc.ABC):
    def __init__(self, vllm_config, role, kv_cache_config):
        if getattr(vllm_config, "kv_transfer_config", None) is None:
            raise ValueError("kv_transfer_config must be set for KVConnectorBase_V1")
        self._connector_metadata = None
        self._vllm_config = vllm_config
        self._kv_transfer_config = vllm_config.kv_transfer_config
        self._role = role
        self._kv_cache_config = kv_cache_config

    @property
    def role(self):
        return self._role

    @property
    def requires_kv_delivery(self):
        return bool(getattr(self._kv_transfer_config, "is_kv_producer", False))

    # worker side
    def bind_connector_metadata(self, connector_metadata):
        self._connector_metadata = connector_metadata

    def clear_connector_metadata(self):
        self._connector_metadata = None

    def _get_connector_metadata(self):
        assert self._connector_metadata is not None
        return self._connector_metadata

    def has_connector_metadata(self):
        return self._connector_metadata is not None

    def register_kv_caches(self, kv_caches):
        return None

    def handle_preemptions(self, kv_connector_metadata):
        return None

    @abc.abstractmethod
    def start_load_kv(self, forward_context, **kwargs): ...

    @abc.abstractmethod
    def wait_for_layer_load(self, layer_name): ...

    @abc.abstractmethod
    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs): ...

    @abc.abstractmethod
    def wait_for_save(self): ...

    def get_finished(self, finished_req_ids):
        return None, None

    def get_transfer_results(self, finished_req_ids):
        sending, recving = self.get_finished(finished_req_ids)
        return KVConnectorTransferResults(finished_sending=sending, finished_recving=recving)

    def get_block_ids_with_load_errors(self):
        return set()

    def shutdown(self):
        return None

    # scheduler side
    @abc.abstractmethod
    def get_num_new_matched_tokens(self, request, num_computed_tokens): ...

    @abc.abstractmethod
    def update_state_after_alloc(self, request, blocks, num_external_tokens): ...

    @abc.abstractmethod
    def build_connector_meta(self, scheduler_output): ...

    def update_connector_output(self, connector_output):
        return None

    def request_finished(self, request, block_ids):
        return False, None

    def take_events(self):
        return ()

    def reset_cache(self):
        return None
