"""MultiConnector, from vLLM's distributed/kv_transfer/kv_connector/v1/multi_connector.py of the
code around the pin, for the calls the conformance suite drives.

Facts reproduced:
- Children come from kv_connector_extra_config["connectors"] (each a kv_transfer_config of its
  own), built through the factory with the same role and kv_cache_config.
- get_num_new_matched_tokens asks every child in order; a child answering None makes the whole
  answer None (ask again later); the first child with a count > 0 is chosen for the request.
- update_state_after_alloc gives the chosen child (blocks, num_external_tokens) and every other
  child the request's real blocks with 0 external tokens (#46865, released in 0.30.0; before it
  they got empty blocks): a child must decide on num_external_tokens, not on the blocks.
- build_connector_meta builds every child's metadata (a tuple, one per child); the worker side
  binds, clears and hands handle_preemptions each child its own part; loads, layer waits, saves
  and load errors fan out; request_finished reaches every child (delay if any delays);
  requires_kv_delivery is True if any child's is.
"""

from types import SimpleNamespace

from vllm.distributed.kv_transfer.kv_connector.factory import KVConnectorFactory
from vllm.distributed.kv_transfer.kv_connector.v1.base import KVConnectorBase_V1, KVConnectorMetadata, KVConnectorTransferResults


class MultiKVConnectorMetadata(KVConnectorMetadata):
    def __init__(self, metadata):
        self.metadata = tuple(metadata)


class MultiConnector(KVConnectorBase_V1):
    def __init__(self, vllm_config, role, kv_cache_config):
        super().__init__(vllm_config, role, kv_cache_config)
        self._connectors = []
        for child in vllm_config.kv_transfer_config.kv_connector_extra_config["connectors"]:
            fields = dict(vars(vllm_config))
            fields["kv_transfer_config"] = SimpleNamespace(**child)
            self._connectors.append(KVConnectorFactory.create_connector(type(vllm_config)(**fields), role, kv_cache_config))
        self._requests_to_connector = {}

    @property
    def requires_kv_delivery(self):
        return any(c.requires_kv_delivery for c in self._connectors)

    # scheduler side
    def get_num_new_matched_tokens(self, request, num_computed_tokens):
        to_return = (0, False)
        for i, c in enumerate(self._connectors):
            toks, load_async = c.get_num_new_matched_tokens(request, num_computed_tokens)
            if toks is None:
                return None, False
            if to_return[0] == 0 and toks > 0:
                self._requests_to_connector[request.request_id] = i
                to_return = (toks, load_async)
        return to_return

    def update_state_after_alloc(self, request, blocks, num_external_tokens):
        chosen = self._requests_to_connector.get(request.request_id, -1)
        for i, c in enumerate(self._connectors):
            c.update_state_after_alloc(request, blocks, num_external_tokens if i == chosen else 0)

    def build_connector_meta(self, scheduler_output):
        return MultiKVConnectorMetadata(c.build_connector_meta(scheduler_output) for c in self._connectors)

    def update_connector_output(self, connector_output):
        for c in self._connectors:
            c.update_connector_output(connector_output)

    def request_finished(self, request, block_ids):
        self._requests_to_connector.pop(request.request_id, None)
        delay = False
        for c in self._connectors:
            d, _params = c.request_finished(request, block_ids)
            delay = delay or d
        return delay, None

    # worker side
    def register_kv_caches(self, kv_caches):
        for c in self._connectors:
            c.register_kv_caches(kv_caches)

    def bind_connector_metadata(self, connector_metadata):
        super().bind_connector_metadata(connector_metadata)
        for c, m in zip(self._connectors, connector_metadata.metadata):
            c.bind_connector_metadata(m)

    def clear_connector_metadata(self):
        super().clear_connector_metadata()
        for c in self._connectors:
            c.clear_connector_metadata()

    def handle_preemptions(self, kv_connector_metadata):
        for c, m in zip(self._connectors, kv_connector_metadata.metadata):
            c.handle_preemptions(m)

    def start_load_kv(self, forward_context, **kwargs):
        for c in self._connectors:
            c.start_load_kv(forward_context, **kwargs)

    def wait_for_layer_load(self, layer_name):
        for c in self._connectors:
            c.wait_for_layer_load(layer_name)

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        for c in self._connectors:
            c.save_kv_layer(layer_name, kv_layer, attn_metadata, **kwargs)

    def wait_for_save(self):
        for c in self._connectors:
            c.wait_for_save()

    def get_transfer_results(self, finished_req_ids):
        sending, recving, failed = set(), set(), set()
        for c in self._connectors:
            r = c.get_transfer_results(finished_req_ids)
            sending |= r.finished_sending or set()
            recving |= r.finished_recving or set()
            failed |= r.failed_recving or set()
        return KVConnectorTransferResults(sending or None, recving or None, failed or None)

    def get_block_ids_with_load_errors(self):
        errors = set()
        for c in self._connectors:
            errors |= c.get_block_ids_with_load_errors()
        return errors
