"""The engine loop, from vLLM's v1/engine/core.py (EngineCore.step): schedule, execute the
model with the scheduler output, update the scheduler from the model output; aborts arrive
between steps through finish_requests(ids, FINISHED_ABORTED). Plugins load first, in the
process that builds the connectors (vllm/plugins load_general_plugins).

The scheduler and the worker run in one process here, as with vLLM's in-process executor;
each builds its own connector for its role."""

from vllm.plugins import load_general_plugins
from vllm.v1.core.sched.scheduler import Scheduler
from vllm.v1.request import RequestStatus
from vllm.v1.worker.model_runner import ModelRunner


class EngineCore:
    def __init__(self, vllm_config, kv_cache_config, **scheduler_options):
        load_general_plugins()
        self.scheduler = Scheduler(vllm_config, kv_cache_config, **scheduler_options)
        self.model_runner = ModelRunner(vllm_config, kv_cache_config)
        self.outputs = []

    def add_request(self, request):
        self.scheduler.add_request(request)

    def abort_requests(self, request_ids):
        return self.scheduler.finish_requests(request_ids, RequestStatus.FINISHED_ABORTED)

    def has_work(self):
        """Unfinished requests, finished ids not yet sent to the worker, or blocks still held for a connector."""
        s = self.scheduler
        return s.has_unfinished_requests() or bool(s.finished_req_ids) or bool(s.requests)

    def step(self):
        scheduler_output = self.scheduler.schedule()
        runner_output = self.model_runner.execute_model(scheduler_output)
        finished = self.scheduler.update_from_output(scheduler_output, runner_output)
        self.outputs.append((scheduler_output, runner_output))
        return scheduler_output, runner_output, finished
