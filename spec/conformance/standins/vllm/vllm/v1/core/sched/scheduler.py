"""The v1 Scheduler's connector call order, from vLLM's v1/core/sched/scheduler.py (Scheduler)
of the code around the pin, for FCFS, one attention group, no encoder or speculative inputs.

Facts reproduced (function by function):
- __init__: the scheduler-side connector is KVConnectorFactory.create_connector(config, role
  SCHEDULER, kv_cache_config); kv_load_failure_policy == "recompute" decides the load-failure
  handling.
- schedule(): RUNNING requests first; when allocate_slots returns None the last running
  request is preempted (_preempt_request: blocks freed, status PREEMPTED, num_computed_tokens 0,
  num_preemptions += 1, put back at the head of the waiting queue) until it fits. WAITING
  requests are tried only when nothing was preempted this step.
- For a waiting request: WAITING_FOR_REMOTE_KVS requests are skipped until
  _update_waiting_for_remote_kv finds them in finished_recving; a new request
  (num_computed_tokens == 0) asks get_computed_blocks, then
  connector.get_num_new_matched_tokens(request, local_computed_tokens); a None count skips the
  request for this step (asked again next step), otherwise ext tokens count as computed. An
  asynchronous load schedules no new tokens (num_new_tokens = 0, asserted ext > 0).
- allocate_slots(...) -> None stops scheduling waiting requests. Otherwise
  connector.update_state_after_alloc(request, kv_cache_manager.get_blocks(id),
  num_external_computed_tokens) is called for every allocated waiting request, ext 0 included;
  an asynchronous load then parks the request in WAITING_FOR_REMOTE_KVS.
- After the loops the SchedulerOutput is built (new requests, cached requests, scheduled
  tokens, preempted ids, finished ids since the last step), then
  connector.build_connector_meta(scheduler_output) sets kv_connector_metadata, then
  _update_after_schedule advances num_computed_tokens and clears finished_req_ids.
- update_from_output(): invalid_block_ids first (_handle_invalid_blocks: the affected running
  request's num_computed_tokens is cut at its first invalid block, its output skipped this
  step, so it recomputes; with policy "fail" it finishes as FINISHED_ERROR), then tokens per
  request and stop checks (_free_request on a finished one), then
  _update_from_kv_xfer_finished: connector.update_connector_output(output) first, then
  finished_recving marks a WAITING_FOR_REMOTE_KVS request ready (or frees the blocks of one
  that finished meanwhile), finished_sending frees blocks.
- finish_requests(ids, status) (abort from outside): a request still in
  WAITING_FOR_REMOTE_KVS keeps its blocks (delay_free_blocks) until its id arrives in
  finished_recving; _free_request calls _connector_finished -> connector.request_finished(
  request, block_ids) and frees the blocks unless either says to delay.
- _update_waiting_for_remote_kv: a finished load makes num_computed_tokens the loaded blocks
  (minus one token when it covers the whole request), a failed one keeps the valid prefix.
"""

from vllm.distributed.kv_transfer.kv_connector.factory import KVConnectorFactory
from vllm.distributed.kv_transfer.kv_connector.v1.base import KVConnectorRole
from vllm.v1.core.kv_cache_manager import KVCacheManager
from vllm.v1.core.sched.output import CachedRequestData, NewRequestData, SchedulerOutput
from vllm.v1.request import RequestStatus


class Scheduler:
    def __init__(self, vllm_config, kv_cache_config, max_num_scheduled_tokens=256, max_num_seqs=16):
        self.vllm_config = vllm_config
        self.block_size = vllm_config.cache_config.block_size
        self.kv_cache_manager = KVCacheManager(kv_cache_config.num_blocks, self.block_size)
        self.connector = KVConnectorFactory.create_connector(vllm_config, KVConnectorRole.SCHEDULER, kv_cache_config)
        policy = getattr(vllm_config.kv_transfer_config, "kv_load_failure_policy", "recompute")
        self.recompute_kv_load_failures = policy == "recompute"
        self.max_num_scheduled_tokens = max_num_scheduled_tokens
        self.max_num_seqs = max_num_seqs
        self.requests = {}
        self.waiting = []
        self.running = []
        self.finished_req_ids = set()
        self.finished_recving_kv_req_ids = set()
        self.failed_recving_kv_req_ids = set()
        self.prev_step_scheduled_req_ids = set()
        # What the driver inspects: every connector answer, and blocks freed per request.
        self.matched_answers = {}
        self.freed = []
        self.finished_outputs = {}
        self.corrupt_kept = {}

    def add_request(self, request):
        self.waiting.append(request)
        self.requests[request.request_id] = request

    def has_unfinished_requests(self):
        return bool(self.waiting or self.running)

    def schedule(self):
        scheduled_new, scheduled_resumed, scheduled_running, preempted = [], [], [], []
        new_blocks_of = {}
        num_scheduled = {}
        budget = self.max_num_scheduled_tokens

        index = 0
        while index < len(self.running) and budget > 0:
            request = self.running[index]
            num_new = min(request.num_tokens - request.num_computed_tokens, budget)
            if num_new <= 0:
                index += 1
                continue
            while True:
                blocks = self.kv_cache_manager.allocate_slots(request, num_new)
                if blocks is not None:
                    break
                victim = self.running.pop()
                self._preempt_request(victim)
                preempted.append(victim)
                if victim is request:
                    break
            if blocks is None:
                break
            scheduled_running.append(request)
            new_blocks_of[request.request_id] = blocks
            num_scheduled[request.request_id] = num_new
            budget -= num_new
            index += 1

        if not preempted:
            skipped = []
            while self.waiting and budget > 0 and len(self.running) < self.max_num_seqs:
                request = self.waiting[0]
                if request.status == RequestStatus.WAITING_FOR_REMOTE_KVS:
                    if self._update_waiting_for_remote_kv(request):
                        request.status = RequestStatus.PREEMPTED if request.num_preemptions else RequestStatus.WAITING
                    else:
                        skipped.append(self.waiting.pop(0))
                        continue
                ext_tokens, load_async = 0, False
                if request.num_computed_tokens == 0:
                    local_blocks, local_tokens = self.kv_cache_manager.get_computed_blocks(request)
                    answer, load_async = self.connector.get_num_new_matched_tokens(request, local_tokens)
                    self.matched_answers.setdefault(request.request_id, []).append(answer)
                    if answer is None:
                        skipped.append(self.waiting.pop(0))
                        continue
                    ext_tokens = answer
                    request.num_external_computed_tokens = ext_tokens
                    computed = local_tokens + ext_tokens
                else:
                    local_tokens = 0
                    computed = request.num_computed_tokens
                if load_async:
                    assert ext_tokens > 0
                    num_new = 0
                else:
                    num_new = min(request.num_tokens - computed, budget)
                    assert num_new > 0
                blocks = self.kv_cache_manager.allocate_slots(request, num_new, num_new_computed_tokens=local_tokens,
                                                              num_external_computed_tokens=ext_tokens, delay_cache_blocks=load_async)
                if blocks is None:
                    break
                self.connector.update_state_after_alloc(request, self.kv_cache_manager.get_blocks(request.request_id), ext_tokens)
                self.waiting.pop(0)
                if load_async:
                    request.status = RequestStatus.WAITING_FOR_REMOTE_KVS
                    skipped.append(request)
                    continue
                self.running.append(request)
                (scheduled_new if request.status == RequestStatus.WAITING else scheduled_resumed).append(request)
                new_blocks_of[request.request_id] = self.kv_cache_manager.get_blocks(request.request_id)
                num_scheduled[request.request_id] = num_new
                budget -= num_new
                request.status = RequestStatus.RUNNING
                request.num_computed_tokens = computed
                if request.num_cached_tokens < 0:
                    request.num_cached_tokens = computed
            self.waiting[:0] = skipped

        new_reqs = [NewRequestData(r.request_id, list(r.prompt_token_ids), new_blocks_of[r.request_id].get_block_ids(), r.num_computed_tokens)
                    for r in scheduled_new]
        cached = CachedRequestData()
        for r in scheduled_running + scheduled_resumed:
            cached.req_ids.append(r.request_id)
            if r in scheduled_resumed:
                cached.resumed_req_ids.add(r.request_id)
                cached.all_token_ids[r.request_id] = list(r.all_token_ids)
            cached.new_block_ids.append(new_blocks_of[r.request_id].get_block_ids())
            cached.num_computed_tokens.append(r.num_computed_tokens)
            cached.num_output_tokens.append(r.num_output_tokens)
        output = SchedulerOutput(new_reqs, cached, num_scheduled, sum(num_scheduled.values()),
                                 {r.request_id for r in preempted}, self.finished_req_ids)
        output.kv_connector_metadata = self.connector.build_connector_meta(output)
        for request_id, n in num_scheduled.items():
            self.requests[request_id].num_computed_tokens += n
        self.prev_step_scheduled_req_ids = set(num_scheduled)
        self.finished_req_ids = set()
        return output

    def _preempt_request(self, request):
        assert request.status == RequestStatus.RUNNING
        self.kv_cache_manager.free(request)
        request.status = RequestStatus.PREEMPTED
        request.num_computed_tokens = 0
        request.num_preemptions += 1
        self.waiting.insert(0, request)

    def update_from_output(self, scheduler_output, runner_output):
        kv_output = runner_output.kv_connector_output
        failed = set()
        if kv_output and kv_output.invalid_block_ids:
            failed = self._handle_invalid_blocks(kv_output.invalid_block_ids)
        finished_now = []
        corrupt = getattr(runner_output, "corrupt_reads", None) or {}
        for request_id in scheduler_output.num_scheduled_tokens:
            if request_id in failed:
                continue
            if request_id in corrupt:
                self.corrupt_kept.setdefault(request_id, set()).update(corrupt[request_id])
            request = self.requests.get(request_id)
            if request is None or request.is_finished():
                continue
            token = runner_output.sampled_token_ids.get(request_id)
            if token is None:
                continue
            request.append_output_token_ids(token)
            if request.num_output_tokens >= request.max_tokens:
                request.status = RequestStatus.FINISHED_LENGTH_CAPPED
                finished_now.append(request)
        for request in finished_now:
            self.running.remove(request)
            self._free_request(request)
        if failed and not self.recompute_kv_load_failures:
            self.finish_requests(failed, RequestStatus.FINISHED_ERROR)
        if kv_output:
            self._update_from_kv_xfer_finished(kv_output)
        return finished_now

    def finish_requests(self, request_ids, finished_status):
        if isinstance(request_ids, str):
            request_ids = (request_ids,)
        valid = [self.requests[i] for i in request_ids if i in self.requests and not self.requests[i].is_finished()]
        for request in valid:
            if request in self.running:
                self.running.remove(request)
            elif request in self.waiting:
                self.waiting.remove(request)
        for request in valid:
            delay = False
            if request.status == RequestStatus.WAITING_FOR_REMOTE_KVS:
                delay = request.request_id not in self.finished_recving_kv_req_ids
                self.finished_recving_kv_req_ids.discard(request.request_id)
                self.failed_recving_kv_req_ids.discard(request.request_id)
            request.status = finished_status
            self._free_request(request, delay_free_blocks=delay)
        return [r.request_id for r in valid]

    def _free_request(self, request, delay_free_blocks=False):
        assert request.is_finished()
        block_ids = self.kv_cache_manager.get_block_ids(request.request_id)
        connector_delay, params = self.connector.request_finished(request, block_ids[0])
        self.finished_outputs[request.request_id] = list(request.all_token_ids[request.num_prompt_tokens:])
        self.finished_req_ids.add(request.request_id)
        if not (delay_free_blocks or connector_delay):
            self._free_blocks(request)
        return params

    def _free_blocks(self, request):
        self.freed.append((request.request_id, self.kv_cache_manager.get_block_ids(request.request_id)[0]))
        self.kv_cache_manager.free(request)
        del self.requests[request.request_id]

    def _update_waiting_for_remote_kv(self, request):
        if request.request_id not in self.finished_recving_kv_req_ids:
            return False
        if request.request_id in self.failed_recving_kv_req_ids:
            if not request.num_computed_tokens:
                self.kv_cache_manager.free(request)
            self.failed_recving_kv_req_ids.remove(request.request_id)
        else:
            (block_ids,) = self.kv_cache_manager.get_block_ids(request.request_id)
            computed = min(len(block_ids) * self.block_size, request.num_tokens)
            if computed == request.num_tokens:
                computed -= 1
            request.num_computed_tokens = computed
        self.finished_recving_kv_req_ids.remove(request.request_id)
        return True

    def _update_from_kv_xfer_finished(self, kv_output):
        self.connector.update_connector_output(kv_output)
        for request_id in kv_output.finished_recving or ():
            assert request_id in self.requests, request_id
            request = self.requests[request_id]
            if request.status == RequestStatus.WAITING_FOR_REMOTE_KVS:
                self.finished_recving_kv_req_ids.add(request_id)
            else:
                assert request.is_finished(), (request_id, request.status)
                self._free_blocks(request)
        for request_id in kv_output.finished_sending or ():
            assert request_id in self.requests, request_id
            self._free_blocks(self.requests[request_id])

    def _invalid_in(self, requests, invalid, use_cached):
        affected = set()
        for request in requests:
            (block_ids,) = self.kv_cache_manager.get_block_ids(request.request_id)
            if use_cached:
                computed = request.num_cached_tokens
            else:
                computed = request.num_computed_tokens if request.request_id in self.failed_recving_kv_req_ids else len(block_ids) * self.block_size
            for idx, block_id in enumerate(block_ids[: -(-computed // self.block_size)]):
                if block_id in invalid:
                    request.num_external_computed_tokens -= computed - idx * self.block_size
                    request.num_computed_tokens = idx * self.block_size
                    affected.add(request.request_id)
                    break
        return affected

    def _handle_invalid_blocks(self, invalid):
        async_failed = self._invalid_in([r for r in self.waiting if r.status == RequestStatus.WAITING_FOR_REMOTE_KVS], invalid, False)
        sync_failed = self._invalid_in(self.running, invalid, True)
        if not self.recompute_kv_load_failures:
            return async_failed | sync_failed
        self.failed_recving_kv_req_ids |= async_failed
        return sync_failed
