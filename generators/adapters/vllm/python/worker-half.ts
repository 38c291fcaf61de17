/** The generated vLLM adapter's `worker_half.py` (fixed text; every contract-derived value comes from `_data`). */
export const WORKER_HALF_PY = String.raw`"""The connector's worker half (role WORKER): KV pages in shared memory, restores with per-layer
waits, saves, preemption, transfer results and load errors.

vLLM facts it follows (v1/worker/gpu_model_runner.py execute_model,
v1/worker/kv_connector_model_runner_mixin.py, attention/layer.py and kv_connector/v1/base.py,
code around the pin):
- register_kv_caches(dict layer name -> tensor) comes once, in layer order, after the caches
  are allocated and bound to the layers: the tensors are the engine's, so the connector cannot
  place them; it registers pages of its own (one page per vLLM block, every layer's share of
  the block in it) and copies between them and the tensors.
- Per step: handle_preemptions(metadata) before the runner updates its states and may hand the
  preempted requests' blocks to others (the V1 runner's order; the code around the pin passes the
  step's metadata, vLLM 0.18 passed a set of request ids: both are accepted); bind_connector_metadata; start_load_kv(forward_context)
  before the forward; per attention layer wait_for_layer_load(layer) before the layer reads KV
  and save_kv_layer(layer, kv_layer, attn_metadata) after it wrote KV; wait_for_save() once the
  forward ends; then the transfer results for scheduler_output.finished_req_ids and
  get_block_ids_with_load_errors(); clear_connector_metadata.
- A request id in finished_recving tells the scheduler its asynchronous load is over and its
  blocks may be used or freed (so its KV is copied in, every layer, before it is reported); an aborted request's blocks stay held until then. Failed blocks
  are reported no later than the step that reports the request, and vLLM recomputes them.
- finished_sending is only for requests whose request_finished returned True; this cache never
  does (best effort), so it reports none.

No page is written while an earlier restore or save may still touch it: each page records the
operation in flight on it, and a new writer waits for it (bounded) or gives the block up (a
save skips it; a load reports it as a load error so vLLM recomputes it).
"""

import logging

from .kv_layout import LayerView

LOG = logging.getLogger(__package__)


class _Restore:
    __slots__ = ("load", "ticket", "restore", "pages", "failed", "aborted", "copied")

    def __init__(self, load):
        self.load = load
        self.ticket = self.restore = None
        self.pages = []
        self.failed = set()
        self.aborted = False
        self.copied = set()

    def busy(self) -> bool:
        return self.restore is not None and not self.restore.done()

    def wait(self, timeout) -> bool:
        return self.restore is None or self.restore.wait(timeout) is not None


class _Save:
    __slots__ = ("request", "handle")

    def __init__(self, request, handle):
        self.request, self.handle = request, handle

    def busy(self) -> bool:
        return self.handle.poll() is None

    def wait(self, timeout) -> bool:
        return self.handle.wait(timeout) is not None


class WorkerHalf:
    def __init__(self, client, geometry, options, client_errors):
        self._client = client
        self._geometry = geometry
        self._options = options
        self._errors = client_errors
        self._rank = geometry.rank()
        self._namespace = geometry.namespace(self._rank)
        self._layer_index = {}
        self._views = []
        self._pages = None
        self._busy = {}
        self._sync = []
        self._async = {}
        self._step_saves = None
        self._load_errors = set()
        self.counters = {"restored_blocks": 0, "saved_blocks": 0, "skipped_saves": 0, "load_errors": 0, "preempted_saves_settled": 0}

    # -- registration ---------------------------------------------------------------------
    def register_kv_caches(self, kv_caches):
        names = list(kv_caches)
        if names != self._geometry.layer_names:
            raise ValueError("register_kv_caches got layers " + repr(names) + ", the KV cache config names " + repr(self._geometry.layer_names))
        views = [LayerView(kv_caches[name], self._geometry.num_blocks) for name in names]
        sizes = {view.block_bytes for view in views}
        if sizes != {self._geometry.layer_bytes}:
            raise ValueError("KV tensors hold " + repr(sorted(sizes)) + " bytes per block and layer; the KV cache spec says " + str(self._geometry.layer_bytes))
        self._pages = self._client.register_pages(self._geometry.layer_bytes, self._geometry.num_blocks, len(names))
        self._layer_index = {name: i for i, name in enumerate(names)}
        self._views = views

    # -- page guard -----------------------------------------------------------------------
    def _claim(self, pages, timeout):
        """The pages, in order, up to the first one still busy after waiting; the rest are given up."""
        usable = []
        for page in pages:
            op = self._busy.get(page)
            if op is not None and not op.wait(timeout):
                break
            self._busy.pop(page, None)
            usable.append(page)
        return usable

    def _mark(self, pages, op):
        for page in pages:
            self._busy[page] = op

    def _unmark(self, pages, op):
        for page in pages:
            if self._busy.get(page) is op:
                del self._busy[page]

    # -- loads ----------------------------------------------------------------------------
    def start_load_kv(self, metadata, forward_context):
        self._sync = []
        for load in metadata.loads:
            entry = _Restore(load)
            pages = self._claim(load["pages"], self._options["layer_timeout_s"])
            entry.failed.update(load["pages"][len(pages):])
            if pages:
                self._start(entry, pages)
            if load["async"]:
                self._async[load["request"]] = entry
            else:
                self._sync.append(entry)

    def _start(self, entry, pages):
        load = entry.load
        try:
            entry.ticket = self._client.lookup(self._namespace, load["hashes"][:len(pages)], load["request"] + "#load",
                                               rank=self._rank, world_size=self._geometry.world_size, deadline_ms=self._options["lookup_deadline_ms"])
            # The scheduler's lookup still holds these blocks: the answer is one round trip away.
            result = entry.ticket.wait(self._options["lookup_deadline_ms"] / 1000.0 + 1.0)
            if result is None:
                self._client.cancel(entry.ticket)
            count = min(result.boundary or 0, len(pages)) if result is not None and result.state == "ready" else 0
            if result is not None and result.state == "ready" and count == 0:
                self._client.release(entry.ticket)
            if count:
                entry.restore = self._client.restore(entry.ticket, pages[:count])
                entry.pages = pages[:count]
                self._mark(entry.pages, entry)
            entry.failed.update(pages[count:])
        except self._errors as error:
            LOG.warning("restore of request %s failed, recomputing it: %s", load["request"], error)
            entry.failed.update(pages)
            entry.pages = [p for p in entry.pages if p not in entry.failed]

    def wait_for_layer_load(self, layer_name):
        layer = self._layer_index[layer_name]
        for entry in self._sync:
            if entry.restore is None or layer in entry.copied:
                continue
            entry.copied.add(layer)
            try:
                arrived = entry.restore.wait_layer(layer, self._options["layer_timeout_s"])
            except self._errors as error:
                LOG.warning("restore of request %s failed at layer %s: %s", entry.load["request"], layer_name, error)
                arrived = False
            if not arrived:
                entry.failed.update(entry.pages)
                continue
            view = self._views[layer]
            for page in entry.pages:
                view.write_from(page, self._pages.page(page, layer))

    def _settle_restore(self, entry):
        """A drained restore: its failed blocks become load errors, its pages free again."""
        if entry.restore is not None:
            try:
                entry.failed.update(entry.restore.failed_pages())
            except self._errors as error:
                LOG.warning("restore of request %s failed: %s", entry.load["request"], error)
                entry.failed.update(entry.pages)
            self._unmark(entry.pages, entry)
            self.counters["restored_blocks"] += len(set(entry.pages) - entry.failed)
        if not entry.aborted:
            self._load_errors.update(entry.failed)
            self.counters["load_errors"] += len(entry.failed)

    # -- saves ----------------------------------------------------------------------------
    def save_kv_layer(self, metadata, layer_name, kv_layer, attn_metadata):
        if self._step_saves is None:
            self._step_saves = []
            for save in metadata.saves:
                pages = self._claim(save["pages"], self._options["save_wait_s"])
                self.counters["skipped_saves"] += len(save["pages"]) - len(pages)
                if pages:
                    self._step_saves.append((save, pages))
        layer = self._layer_index[layer_name]
        view = self._views[layer]
        for _save, pages in self._step_saves:
            for page in pages:
                view.read_into(page, self._pages.page(page, layer))

    def wait_for_save(self, metadata):
        """Submits this step's saves; the pages stay marked until the Manager has read them."""
        for save, pages in self._step_saves or ():
            try:
                handle = self._client.save(self._namespace, save["hashes"][:len(pages)], pages, request=save["request"])
            except self._errors as error:
                LOG.warning("save of request %s failed (a future miss): %s", save["request"], error)
                continue
            self._mark(pages, _Save(save["request"], handle))
            self.counters["saved_blocks"] += len(pages)
        self._step_saves = None
        for entry in self._sync:
            if not entry.wait(self._options["layer_timeout_s"]):
                entry.failed.update(entry.pages)
                self._load_errors.update(entry.pages)
                continue
            self._settle_restore(entry)
        self._sync = []

    def handle_preemptions(self, metadata):
        """Preempted requests' saves finish before vLLM hands their blocks to other requests."""
        preempted = metadata if isinstance(metadata, (set, frozenset)) else getattr(metadata, "preempted", None) or set()
        if not preempted:
            return
        for page, op in list(self._busy.items()):
            if isinstance(op, _Save) and op.request in preempted:
                if op.wait(self._options["save_wait_s"]):
                    self._unmark([page], op)
                    self.counters["preempted_saves_settled"] += 1

    # -- results --------------------------------------------------------------------------
    def transfer_results(self, finished_req_ids):
        """(finished_sending, finished_recving, failed_recving) for this step."""
        for rid in finished_req_ids or ():
            entry = self._async.get(rid)
            if entry is not None and not entry.aborted:
                entry.aborted = True
                if entry.busy() and entry.ticket is not None:
                    try:
                        self._client.cancel(entry.ticket)
                    except self._errors:
                        pass
        recving, failed = set(), set()
        for rid, entry in list(self._async.items()):
            if entry.busy():
                continue
            del self._async[rid]
            self._settle_restore(entry)
            if not entry.aborted:
                # The request's blocks are its own until it is reported: its KV comes in now, every layer.
                landed = [page for page in entry.pages if page not in entry.failed]
                for layer, view in enumerate(self._views):
                    for page in landed:
                        view.write_from(page, self._pages.page(page, layer))
            recving.add(rid)
            if entry.failed and not entry.aborted:
                failed.add(rid)
        return None, recving or None, failed or None

    def get_block_ids_with_load_errors(self):
        errors, self._load_errors = self._load_errors, set()
        return errors

    def shutdown(self):
        for entry in list(self._async.values()) + self._sync:
            entry.wait(self._options["layer_timeout_s"])
        for op in list(self._busy.values()):
            op.wait(self._options["save_wait_s"])
        self._busy.clear()
`;
