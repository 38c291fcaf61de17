"""What a worker step returns, from vLLM's v1/outputs.py (KVConnectorOutput, ModelRunnerOutput):
the connector's finished sends and receives, failed receives, and the block ids whose load
failed (invalid_block_ids), next to the sampled tokens."""

from dataclasses import dataclass, field


@dataclass
class KVConnectorOutput:
    finished_sending: "set | None" = None
    finished_recving: "set | None" = None
    failed_recving: "set | None" = None
    invalid_block_ids: set = field(default_factory=set)


@dataclass
class ModelRunnerOutput:
    req_ids: list
    sampled_token_ids: dict
    kv_connector_output: "KVConnectorOutput | None" = None
    # The stand-in model's own check: requests whose attention read KV that differs from what
    # the model computes for that prefix (a wrong restore shows up here).
    corrupt_reads: dict = field(default_factory=dict)
