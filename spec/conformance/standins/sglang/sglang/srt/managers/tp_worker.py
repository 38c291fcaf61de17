"""The model worker captures CUDA graphs before the tree cache exists; a speculative (draft)
worker calls init_cuda_graphs(capture_decode_cuda_graph=False)."""

CALLS = []


class TpModelWorker:
    def __init__(self, server_args, is_draft_worker=False):
        self.server_args = server_args
        self.is_draft_worker = is_draft_worker

    def init_cuda_graphs(self, capture_decode_cuda_graph: bool = True):
        CALLS.append(("init_cuda_graphs", self.is_draft_worker, capture_decode_cuda_graph))
        return "captured"
