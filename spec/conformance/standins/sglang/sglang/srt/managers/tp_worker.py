"""The model worker captures CUDA graphs before the tree cache exists; a speculative (draft)
worker calls init_cuda_graphs(capture_decode_cuda_graph=False).

Fact (managers/tp_worker.py, TpModelWorker.init_cuda_graphs(self, capture_decode_cuda_graph=True),
since June 2026): the worker delegates to its model runner's capture."""

from ..model_executor.model_runner import ModelRunner

CALLS = []


class TpModelWorker:
    def __init__(self, server_args, is_draft_worker=False, model_runner=None):
        self.server_args = server_args
        self.is_draft_worker = is_draft_worker
        self.model_runner = model_runner or ModelRunner()

    def init_cuda_graphs(self, capture_decode_cuda_graph: bool = True):
        CALLS.append(("init_cuda_graphs", self.is_draft_worker, capture_decode_cuda_graph))
        self.model_runner.init_cuda_graphs(capture_decode_cuda_graph)
        return "captured"
