/** The generated vLLM adapter's `scheduler_half.py` (fixed text; every contract-derived value comes from `_data`). */
export const SCHEDULER_HALF_PY = String.raw`"""The connector's scheduler half (role SCHEDULER): lookups, load and save decisions, leases.

vLLM facts it follows (v1/core/sched/scheduler.py Scheduler.schedule / update_from_output /
_free_request, and kv_connector/v1/base.py, code around the pin):
- get_num_new_matched_tokens(request, num_computed_tokens) is asked for a waiting request
  with no computed tokens, after the local prefix-cache hit; it may be asked again for the same
  request in later steps (allocation failed, or None was answered) and must not depend on being
  asked once. None means "ask again later": the request is skipped this step. The count is of
  tokens beyond num_computed_tokens; the bool says the load is asynchronous (then the count must
  be > 0, and the request waits in WAITING_FOR_REMOTE_KVS until the worker reports it in
  finished_recving). A synchronous load needs at least one token left to compute.
- update_state_after_alloc(request, blocks, num_external_tokens) follows every allocation of a
  waiting request, num_external_tokens 0 included, and again with 0 when an asynchronously
  loaded request is scheduled; blocks may be non-empty with 0 (MultiConnector, #46865): the
  decision is num_external_tokens.
- Since #46865 (released in 0.30.0) MultiConnector hands an unchosen child the request's real
  blocks with 0 external tokens, so this cache also saves blocks another child loaded (native
  P/D-produced state): saves start past the local hit and this cache's own load.
- build_connector_meta(scheduler_output) runs once per step after the output is built (new
  requests with block ids and computed tokens, cached requests with added block ids, scheduled
  token counts, preempted and finished ids) and before num_computed_tokens advances.
- update_connector_output(output) runs once per executed step, in step order, before
  finished_recving is applied; request_finished(request, block_ids) once per finished request,
  before its blocks are freed; (False, None) lets vLLM free them now.

Pending lookups answer None, never 0. A lookup's leases are held only while they may still be
restored: released when vLLM allocates the request without external tokens (unselected), when
it finishes unselected, and once the worker's restore has drained (after the step for a
synchronous load, on finished_recving for an asynchronous one).
"""

import collections
import logging

from .kv_layout import hash_text

LOG = logging.getLogger(__package__)
# Steps whose synchronous loads may still be executing (a step's output arrives after it ran).
HELD_STEPS = 4


class _Lookup:
    __slots__ = ("ticket", "offset", "hashes", "result", "settled")

    def __init__(self, ticket, offset, hashes):
        self.ticket, self.offset, self.hashes = ticket, offset, hashes
        self.result = None
        self.settled = False


class SchedulerHalf:
    def __init__(self, client, geometry, options, metadata_class, client_errors):
        self._client = client
        self._geometry = geometry
        self._namespace = geometry.namespace(0)
        self._options = options
        self._metadata_class = metadata_class
        self._errors = client_errors
        self._lookups = {}
        self._requests = {}
        self._stored = {}
        self._tracked = {}
        self._step_loads = []
        self._step_held = []
        self._held = collections.deque()
        self._async_held = {}

    # -- lookups ---------------------------------------------------------------------------
    def get_num_new_matched_tokens(self, request, num_computed_tokens):
        rid = request.request_id
        block = self._geometry.block_size
        offset = num_computed_tokens // block
        limit = min((request.num_tokens - 1) // block, len(request.block_hashes))
        lookup = self._lookups.get(rid)
        if lookup is not None and (lookup.offset != offset or len(lookup.hashes) != max(0, limit - offset)):
            # Asked again with another local hit or other tokens (a resumed request): look up afresh.
            self._settle(self._lookups.pop(rid))
            lookup = None
        if limit <= offset:
            return 0, False
        try:
            if lookup is None:
                hashes = [hash_text(h) for h in request.block_hashes[offset:limit]]
                ticket = self._client.lookup(self._namespace, hashes, rid, rank=0, world_size=1, deadline_ms=self._options["lookup_deadline_ms"])
                lookup = self._lookups[rid] = _Lookup(ticket, offset, hashes)
            if lookup.result is None:
                result = lookup.ticket.poll()
                if result is None:
                    return None, False
                lookup.result = result
        except self._errors as error:
            LOG.warning("lookup of request %s failed, computing it instead: %s", rid, error)
            self._lookups.pop(rid, None)
            return 0, False
        result = lookup.result
        if result.state != "ready" or not result.boundary:
            return 0, False
        return min(result.boundary, len(lookup.hashes)) * block, self._asynchronous(result)

    def _asynchronous(self, result) -> bool:
        mode = self._options["load_mode"]
        if mode != "auto":
            return mode == "async"
        tiers = getattr(result, "tiers", None) or {}
        return any(count for tier, count in tiers.items() if tier != "dram")

    def _settle(self, lookup):
        """Gives the Manager back what an unused lookup holds (cancel if pending, release if ready)."""
        if lookup.settled:
            return
        lookup.settled = True
        try:
            if lookup.result is None:
                self._client.cancel(lookup.ticket)
            elif lookup.result.state == "ready":
                self._client.release(lookup.ticket)
        except self._errors as error:
            LOG.warning("releasing a lookup failed (its leases expire on their own): %s", error)

    # -- allocation and metadata ----------------------------------------------------------
    def update_state_after_alloc(self, request, blocks, num_external_tokens):
        rid = request.request_id
        self._requests[rid] = request
        lookup = self._lookups.pop(rid, None)
        if lookup is None:
            return
        usable = lookup.result is not None and lookup.result.state == "ready" and lookup.result.boundary
        if num_external_tokens <= 0 or not usable:
            # Unselected: the blocks past the local hit are not in this cache (another connector,
            # e.g. a native P/D receiver inside MultiConnector, may fill them): they are saved.
            self._stored[rid] = lookup.offset
            self._settle(lookup)
            return
        count = num_external_tokens // self._geometry.block_size
        self._stored[rid] = lookup.offset + count
        block_ids = list(blocks.get_block_ids()[0])
        pages = block_ids[lookup.offset:lookup.offset + count]
        load = {"request": rid, "hashes": lookup.hashes[:len(pages)], "pages": pages, "async": self._asynchronous(lookup.result)}
        self._step_loads.append(load)
        if load["async"]:
            self._async_held[rid] = lookup
        else:
            self._step_held.append(lookup)

    def build_connector_meta(self, scheduler_output):
        block = self._geometry.block_size
        scheduled = scheduler_output.num_scheduled_tokens
        saves = []
        for new in scheduler_output.scheduled_new_reqs:
            request = self._requests.get(new.req_id)
            if request is not None:
                stored = self._stored.pop(new.req_id, new.num_computed_tokens // block)
                state = self._tracked[new.req_id] = [request, list(new.block_ids[0]), stored]
                self._plan_save(state, new.num_computed_tokens, scheduled.get(new.req_id, 0), saves)
        cached = scheduler_output.scheduled_cached_reqs
        for i, rid in enumerate(cached.req_ids):
            added = cached.new_block_ids[i]
            if rid in cached.resumed_req_ids and rid in self._requests:
                stored = self._stored.pop(rid, cached.num_computed_tokens[i] // block)
                self._tracked[rid] = [self._requests[rid], list(added[0]), stored]
            elif rid in self._tracked and added is not None:
                self._tracked[rid][1].extend(added[0])
            if rid in self._tracked:
                self._plan_save(self._tracked[rid], cached.num_computed_tokens[i], scheduled.get(rid, 0), saves)
        for rid in scheduler_output.preempted_req_ids:
            self._tracked.pop(rid, None)
        meta = self._metadata_class(self._step_loads, saves, set(scheduler_output.preempted_req_ids), set(scheduler_output.finished_req_ids))
        self._step_loads = []
        self._held.append(self._step_held)
        self._step_held = []
        while len(self._held) > HELD_STEPS:
            for lookup in self._held.popleft():
                self._settle(lookup)
        return meta

    def _plan_save(self, state, computed, scheduled, saves):
        request, blocks, saved = state
        full = min(len(request.block_hashes), (computed + scheduled) // self._geometry.block_size, len(blocks))
        if full > saved:
            saves.append({"request": request.request_id, "hashes": [hash_text(h) for h in request.block_hashes[saved:full]], "pages": blocks[saved:full]})
            state[2] = full

    # -- results and finish ---------------------------------------------------------------
    def update_connector_output(self, connector_output):
        for rid in getattr(connector_output, "finished_recving", None) or ():
            lookup = self._async_held.pop(rid, None)
            if lookup is not None:
                self._settle(lookup)
        if self._held:
            for lookup in self._held.popleft():
                self._settle(lookup)

    def request_finished(self, request, block_ids):
        rid = request.request_id
        lookup = self._lookups.pop(rid, None)
        if lookup is not None:
            self._settle(lookup)
        self._requests.pop(rid, None)
        self._stored.pop(rid, None)
        self._tracked.pop(rid, None)
        return False, None

    def take_events(self):
        return ()

    def reset_cache(self):
        # The Manager's tiers are shared and persistent; an engine reset does not clear them.
        return False

    def open_lookups(self) -> int:
        return len(self._lookups)
`;
