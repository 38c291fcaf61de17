"""What one scheduler step hands the workers, from vLLM's v1/core/sched/output.py
(SchedulerOutput, NewRequestData, CachedRequestData): new requests with their block ids and
computed-token counts, cached (running or resumed) requests with the blocks added this step,
tokens scheduled per request, the ids preempted this step, the ids finished since the last
step, and the connector's metadata (set by the scheduler after build_connector_meta)."""

from dataclasses import dataclass, field


@dataclass
class NewRequestData:
    req_id: str
    prompt_token_ids: list
    block_ids: tuple
    num_computed_tokens: int


@dataclass
class CachedRequestData:
    req_ids: list = field(default_factory=list)
    resumed_req_ids: set = field(default_factory=set)
    new_block_ids: list = field(default_factory=list)
    num_computed_tokens: list = field(default_factory=list)
    num_output_tokens: list = field(default_factory=list)
    all_token_ids: dict = field(default_factory=dict)


@dataclass
class SchedulerOutput:
    scheduled_new_reqs: list
    scheduled_cached_reqs: CachedRequestData
    num_scheduled_tokens: dict
    total_num_scheduled_tokens: int
    preempted_req_ids: set
    finished_req_ids: set
    kv_connector_metadata: object = None
