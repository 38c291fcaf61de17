"""A request as the scheduler sees it (fields named as in managers/schedule_batch.py, Req)."""


class Req:
    def __init__(self, rid, origin_input_ids, max_new_tokens=1):
        self.rid = rid
        self.origin_input_ids = list(origin_input_ids)
        self.output_ids = []
        self.max_new_tokens = max_new_tokens
        self.fill_ids = list(origin_input_ids)
        self.prefix_pages = []
        self.new_pages = []
        self.host_hit_length = 0
        self.last_node = None
        self.finished = False
        self.aborted = False

    def init_next_round_input(self, tree_cache):
        """Fact (Req.init_next_round_input): fill_ids from the prompt and outputs, then the prefix match."""
        self.fill_ids = self.origin_input_ids + self.output_ids
        if tree_cache is not None:
            tree_cache.match_prefix(self)

    def needs_host_load_back(self):
        return self.host_hit_length > 0
