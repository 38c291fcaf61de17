"""The V1 model runner's connector call order, from vLLM's v1/worker/gpu_model_runner.py
(execute_model) and v1/worker/kv_connector_model_runner_mixin.py (_get_kv_connector_output,
kv_connector_no_forward) of the code around the pin, with a tiny deterministic "model".

Facts reproduced:
- At start-up the worker builds its connector (role WORKER) through the factory and calls
  register_kv_caches(dict of layer name -> KV tensor), in layer order, once the caches exist.
- execute_model: connector.handle_preemptions(kv_connector_metadata) comes before
  _update_states (which also trims a request's cached output tokens to the scheduler's count) (the V1 order: the runner may reuse the preempted requests' blocks there).
- Then, within the forward context: bind_connector_metadata(metadata), start_load_kv(
  forward_context), the forward pass (per attention layer wait_for_layer_load(layer) before it,
  save_kv_layer(layer, kv_layer, attn_metadata) after it), wait_for_save(), the transfer results
  for scheduler_output.finished_req_ids (get_transfer_results -> finished_sending,
  finished_recving, failed_recving), get_block_ids_with_load_errors() as invalid_block_ids,
  clear_connector_metadata().
- Releases before get_transfer_results call get_finished(finished_req_ids) -> (finished_sending,
  finished_recving) there instead (STANDIN_VLLM_GET_FINISHED=1 selects that order).
- A step with no scheduled tokens runs the same connector calls without a forward pass
  (kv_connector_no_forward: attn_metadata None, so no layer waits or saves).

The model: the K and V bytes of position p in layer L are a hash of (L, tokens[0..p]), so a
correct restore and a recompute give identical bytes; every forward re-reads the KV of every
earlier position of its requests and reports positions whose bytes differ (corrupt_reads), and
the sampled token is a hash of all KV the last layer read, so wrong KV changes the output.
The KV tensors are buffer-protocol views shaped (2, num_blocks, block_bytes / 2): K and V
halves, as the flash-attention layout puts the block dimension second.
"""

import hashlib
import os

from vllm.distributed.kv_transfer.kv_connector.factory import KVConnectorFactory
from vllm.distributed.kv_transfer.kv_connector.v1.base import KVConnectorRole
from vllm.forward_context import ForwardContext, maybe_save_kv_layer_to_connector, wait_for_kv_layer_from_connector
from vllm.v1.outputs import KVConnectorOutput, ModelRunnerOutput


# Releases before get_transfer_results asked get_finished(finished_req_ids) -> (sending, recving).
GET_FINISHED = os.environ.get("STANDIN_VLLM_GET_FINISHED") == "1"


def token_kv(layer_index, prefix_digest, half, row):
    seed = hashlib.sha512(bytes([layer_index, half]) + prefix_digest).digest()
    return (seed * (row // len(seed) + 1))[:row]


class ModelRunner:
    def __init__(self, vllm_config, kv_cache_config):
        group = kv_cache_config.kv_cache_groups[0]
        self.block_size = group.kv_cache_spec.block_size
        self.num_blocks = kv_cache_config.num_blocks
        self.layer_names = list(group.layer_names)
        self.half_bytes = group.kv_cache_spec.page_size_bytes // 2
        self.row = self.half_bytes // self.block_size
        self.kv_caches = {
            name: memoryview(bytearray(2 * self.half_bytes * self.num_blocks)).cast("B", (2, self.num_blocks, self.half_bytes))
            for name in self.layer_names
        }
        self._flat = {name: kv.cast("B") for name, kv in self.kv_caches.items()}
        self.connector = KVConnectorFactory.create_connector(vllm_config, KVConnectorRole.WORKER, kv_cache_config)
        self.connector.register_kv_caches(self.kv_caches)
        self.states = {}
        self.calls = []

    def _update_states(self, out):
        for request_id in out.finished_req_ids | out.preempted_req_ids:
            self.states.pop(request_id, None)
        for new in out.scheduled_new_reqs:
            self.states[new.req_id] = {"tokens": list(new.prompt_token_ids), "prompt": len(new.prompt_token_ids), "blocks": list(new.block_ids[0]), "digests": []}
        cached = out.scheduled_cached_reqs
        for request_id, blocks, outputs in zip(cached.req_ids, cached.new_block_ids, cached.num_output_tokens):
            if request_id in cached.resumed_req_ids:
                tokens = list(cached.all_token_ids[request_id])
                self.states[request_id] = {"tokens": tokens, "prompt": len(tokens) - outputs, "blocks": list(blocks[0]), "digests": []}
                continue
            state = self.states[request_id]
            if blocks is not None:
                state["blocks"].extend(blocks[0])
            # A token the scheduler discarded (its step read KV that failed to load) is dropped here.
            del state["tokens"][state["prompt"] + outputs:]
            del state["digests"][len(state["tokens"]):]

    def _slot(self, name, half, block, offset):
        start = (half * self.num_blocks + block) * self.half_bytes + offset * self.row
        return self._flat[name][start:start + self.row]

    def _digests(self, state, upto):
        digests = state["digests"]
        while len(digests) < upto:
            parent = digests[-1] if digests else b""
            digests.append(hashlib.sha256(parent + str(state["tokens"][len(digests)]).encode()).digest())
        return digests

    def execute_model(self, out):
        meta = out.kv_connector_metadata
        self.connector.handle_preemptions(meta)
        self._update_states(out)
        self.connector.bind_connector_metadata(meta)
        scheduled = {rid: n for rid, n in out.num_scheduled_tokens.items() if n > 0}
        attn = {name: {"num_scheduled_tokens": dict(scheduled)} for name in self.layer_names} if scheduled else None
        context = ForwardContext(attn_metadata=attn)
        self.connector.start_load_kv(context)
        corrupt, sampled = {}, {}
        if scheduled:
            start = {rid: self._computed(out, rid) for rid in scheduled}
            reads = {rid: hashlib.sha256() for rid in scheduled}
            for index, name in enumerate(self.layer_names):
                wait_for_kv_layer_from_connector(self.connector, context, name)
                for rid, n in scheduled.items():
                    state = self.states[rid]
                    first, end = start[rid], start[rid] + n
                    digests = self._digests(state, end)
                    for p in range(first, end):
                        block, offset = state["blocks"][p // self.block_size], p % self.block_size
                        for half in (0, 1):
                            self._slot(name, half, block, offset)[:] = token_kv(index, digests[p], half, self.row)
                    for p in range(end):
                        block, offset = state["blocks"][p // self.block_size], p % self.block_size
                        for half in (0, 1):
                            got = bytes(self._slot(name, half, block, offset))
                            if got != token_kv(index, digests[p], half, self.row):
                                corrupt.setdefault(rid, set()).add(p // self.block_size)
                            if index == len(self.layer_names) - 1:
                                reads[rid].update(got)
                maybe_save_kv_layer_to_connector(self.connector, context, name, self.kv_caches[name])
            for rid, n in scheduled.items():
                state = self.states[rid]
                if start[rid] + n >= len(state["tokens"]):
                    token = int.from_bytes(reads[rid].digest()[:2], "big")
                    sampled[rid] = token
                    state["tokens"].append(token)
        self.connector.wait_for_save()
        if GET_FINISHED:
            sending, recving = self.connector.get_finished(out.finished_req_ids)
            kv_output = KVConnectorOutput(finished_sending=sending, finished_recving=recving)
        else:
            results = self.connector.get_transfer_results(out.finished_req_ids)
            kv_output = KVConnectorOutput(finished_sending=results.finished_sending, finished_recving=results.finished_recving, failed_recving=results.failed_recving)
        kv_output.invalid_block_ids = set(self.connector.get_block_ids_with_load_errors())
        self.connector.clear_connector_metadata()
        return ModelRunnerOutput(list(scheduled), sampled, kv_output, {rid: sorted(b) for rid, b in corrupt.items()})

    def _computed(self, out, rid):
        for new in out.scheduled_new_reqs:
            if new.req_id == rid:
                return new.num_computed_tokens
        cached = out.scheduled_cached_reqs
        return cached.num_computed_tokens[cached.req_ids.index(rid)]
