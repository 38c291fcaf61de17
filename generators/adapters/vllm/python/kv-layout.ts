/** The generated vLLM adapter's `kv_layout.py` (fixed text; every contract-derived value comes from `_data`). */
export const KV_LAYOUT_PY = String.raw`"""What both connector halves agree on: the cache namespace, the block hashes as text, the
connector options, and how one KV layer's block is found in the engine's tensor.

Facts (vLLM, code around the pin): the connector is built with kv_cache_config, whose
num_blocks and kv_cache_groups[0] (layer_names, kv_cache_spec.block_size, page_size_bytes,
dtype) describe the one attention group the rejections admit (v1/kv_cache_interface.py
KVCacheConfig, KVCacheGroupSpec, AttentionSpec). request.block_hashes are bytes chained from
a seed that is random per process unless PYTHONHASHSEED is set (v1/core/kv_cache_utils.py
init_none_hash), so hits across engine restarts need a fixed PYTHONHASHSEED. The worker's KV
tensor of a flash-attention layer is (2, num_blocks, ...): the block dimension is second; other
backends put it first (attention backends' get_kv_cache_shape).
"""


OPTION_DEFAULTS = {"load_mode": "auto", "lookup_deadline_ms": 2000, "layer_timeout_s": 30.0, "save_wait_s": 30.0}
LOAD_MODES = ("auto", "sync", "async")


def hash_text(block_hash) -> str:
    """The Manager's text form of one engine block hash: bytes as hex, an int as decimal."""
    if isinstance(block_hash, (bytes, bytearray, memoryview)):
        return bytes(block_hash).hex()
    if isinstance(block_hash, int):
        return str(block_hash)
    raise TypeError("a vLLM block hash is bytes or int, not " + type(block_hash).__name__)


class Geometry:
    """The KV layout and cache namespace of one connector, read from the engine's configs."""

    def __init__(self, vllm_config, kv_cache_config):
        groups = list(getattr(kv_cache_config, "kv_cache_groups", None) or ())
        if len(groups) != 1:
            raise ValueError("the connector serves exactly one KV cache group (got " + str(len(groups)) + ")")
        spec = groups[0].kv_cache_spec
        self.block_size = int(spec.block_size)
        self.layer_names = list(groups[0].layer_names)
        self.layer_bytes = int(spec.page_size_bytes)
        self.num_blocks = int(kv_cache_config.num_blocks)
        self.model = str(vllm_config.model_config.model)
        self.dtype = str(getattr(spec, "dtype", getattr(vllm_config.cache_config, "cache_dtype", "auto")))
        parallel = getattr(vllm_config, "parallel_config", None)
        self.world_size = int(getattr(parallel, "tensor_parallel_size", 1) or 1)

    @property
    def page_bytes(self) -> int:
        return self.layer_bytes * len(self.layer_names)

    def namespace(self, rank: int) -> dict:
        layout = "vllm:%s:%dx%d:tp%dof%d" % (self.dtype, len(self.layer_names), self.layer_bytes, rank, self.world_size)
        return {"model": self.model, "layout": layout, "blockSize": self.block_size}

    def rank(self) -> int:
        if self.world_size == 1:
            return 0
        from vllm.distributed.parallel_state import get_tensor_model_parallel_rank  # the worker's own TP rank

        return int(get_tensor_model_parallel_rank())


def options(vllm_config) -> dict:
    """kv_transfer_config.kv_connector_extra_config, checked: unknown keys and bad values are refused."""
    extra = getattr(getattr(vllm_config, "kv_transfer_config", None), "kv_connector_extra_config", None) or {}
    unknown = sorted(set(extra) - set(OPTION_DEFAULTS))
    if unknown:
        raise ValueError("unknown kv_connector_extra_config keys " + ", ".join(unknown) + " (known: " + ", ".join(sorted(OPTION_DEFAULTS)) + ")")
    out = dict(OPTION_DEFAULTS)
    out.update(extra)
    if out["load_mode"] not in LOAD_MODES:
        raise ValueError("kv_connector_extra_config load_mode must be one of " + ", ".join(LOAD_MODES))
    for key in ("lookup_deadline_ms", "layer_timeout_s", "save_wait_s"):
        if not isinstance(out[key], (int, float)) or isinstance(out[key], bool) or out[key] < 0:
            raise ValueError("kv_connector_extra_config " + key + " must be a non-negative number")
    out["lookup_deadline_ms"] = int(out["lookup_deadline_ms"])
    return out


class LayerView:
    """One layer's KV tensor as byte spans per block (1 span block-major, 2 spans K/V-major)."""

    def __init__(self, tensor, num_blocks: int):
        if getattr(tensor, "is_cuda", False):
            raise ValueError("KV tensors on a GPU need the device copy path, which this adapter build does not have")
        source = tensor
        if type(tensor).__module__.split(".")[0] == "torch":
            import torch  # only reached inside an engine that handed us torch tensors

            if not tensor.is_contiguous():
                raise ValueError("a KV tensor must be contiguous")
            shape = tuple(tensor.shape)
            source = tensor.detach().reshape(-1).view(torch.uint8).numpy()
        else:
            shape = tuple(memoryview(tensor).shape)
        view = memoryview(source)
        flat = view if view.ndim == 1 and view.format == "B" else view.cast("B")
        if shape and shape[0] == num_blocks:
            self.spans, self.span_bytes = 1, flat.nbytes // num_blocks
        elif len(shape) > 1 and shape[0] == 2 and shape[1] == num_blocks:
            self.spans, self.span_bytes = 2, flat.nbytes // (2 * num_blocks)
        else:
            raise ValueError("KV tensor shape " + str(shape) + " has no block dimension of size " + str(num_blocks) + " first or second")
        self._flat = flat
        self._num_blocks = num_blocks
        self.block_bytes = self.spans * self.span_bytes

    def _span(self, block: int, k: int) -> memoryview:
        start = (k * self._num_blocks + block) * self.span_bytes
        return self._flat[start:start + self.span_bytes]

    def read_into(self, block: int, page: memoryview) -> None:
        """Copies the block's bytes of this layer into a page slice."""
        for k in range(self.spans):
            page[k * self.span_bytes:(k + 1) * self.span_bytes] = self._span(block, k)

    def write_from(self, block: int, page: memoryview) -> None:
        """Copies a page slice into the block of this layer."""
        for k in range(self.spans):
            self._span(block, k)[:] = page[k * self.span_bytes:(k + 1) * self.span_bytes]
`;
