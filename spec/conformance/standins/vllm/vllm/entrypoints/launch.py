"""What a vLLM process does with the adapter: plugins load, then the factory builds the
scheduler-side connector from the live config."""

from vllm.distributed.kv_transfer.kv_connector.factory import KVConnectorFactory
from vllm.distributed.kv_transfer.kv_connector.v1.base import KVConnectorRole
from vllm.plugins import load_general_plugins


def launch(vllm_config, kv_cache_config, role=KVConnectorRole.SCHEDULER):
    load_general_plugins()
    return KVConnectorFactory.create_connector(vllm_config, role, kv_cache_config)
