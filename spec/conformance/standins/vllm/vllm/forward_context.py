"""The forward context the attention layers read, from vLLM's forward_context.py and the
attention layer's connector calls (attention/layer.py: wait_for_kv_layer_from_connector before
a layer's attention, maybe_save_kv_layer_to_connector after it; both do nothing when the
context's attn_metadata is None, and pass the layer's own metadata when it is a dict)."""

from dataclasses import dataclass


@dataclass
class ForwardContext:
    attn_metadata: "dict | None"
    no_compile_layers: "dict | None" = None


def wait_for_kv_layer_from_connector(connector, context, layer_name):
    if connector is None or context.attn_metadata is None:
        return
    connector.wait_for_layer_load(layer_name)


def maybe_save_kv_layer_to_connector(connector, context, layer_name, kv_cache_layer):
    if connector is None or context.attn_metadata is None:
        return
    connector.save_kv_layer(layer_name, kv_cache_layer, context.attn_metadata[layer_name])
