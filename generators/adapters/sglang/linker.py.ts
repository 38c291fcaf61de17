/** The Unified cache linker over the Manager client: every abstract method of the engine's base. */
export const LINKER_PY = String.raw`"""The Unified cache linker classes, over the Manager client.

Each subclasses SGLang's UnifiedCacheLinker and is built on first access (PEP 562), so importing
this module imports nothing from SGLang. What each method does, in the engine's order:

- lookup(rid, transfers): opens one Manager lookup ticket per request (rank and world size from
  the cache parameters, so the Manager makes every rank agree on one boundary) and polls it
  without blocking. Pending answers no length (and is remembered as pending: the admission hook
  defers the request rather than admitting it as a miss); ready answers every length up to the
  agreed boundary; miss, timed out or cancelled answer none.
- load(rid, transfers): queues a restore of the ticket's leading blocks into the given device
  pages; start_layer_wise_loading() starts every queued restore as one batch of the layer
  counter and returns its index. A worker thread copies each layer into the device pool as it
  lands and marks that layer done; a failed or late layer fails the batch (the forward raises,
  never reads it). A batch is reported by pop_completed_load() only once every restore in it
  drained, so the tree never frees a page a restore may still write.
- cancel_queued_load(rid): True only for a load not started (its ticket released); a lookup
  still open is released too. A started load is never cut short: it drains, then completes.
- drain(rid) (the scheduler's abort hook): cancel_queued_load(rid), then waits until every
  started restore of rid drained, so the pages the abort frees are no longer written.
- offload(transfers): copies the device pages into the registered pages (the engine's pool is
  pinned by the tree until the result is popped) and saves them; pop_completed_offload() gives
  whether every block was stored.
- reset() / close(): wait for every started transfer, release every ticket, then reset the
  counter or close the connection.

The registered pages mirror the device pool page for page (same index), so a restore or a save
never needs a page of its own. The KV pool and the completion counter come from the engine (the
counter installed by the graph-capture hook); a linker built without that counter is refused:
graphs captured without it would replay without waiting for restores.
"""

import contextlib
import importlib
import os
import queue
import threading

from . import _data, completion, manager, rejections

_TEMPLATE = _data.DATA["template"]
_LINKERS = {spec["className"]: spec for spec in _TEMPLATE["linkers"]}
_GEOMETRY = _TEMPLATE["linkerGeometry"]
DEADLINE_ENV: str = _data.DATA["product"]["envPrefix"] + "_LOOKUP_DEADLINE_MS"
LAYER_WAIT_ENV: str = completion.WAIT_ENV
_LIVE: "dict[str, object]" = {}


class LinkerRejection(rejections.AdapterRejection):
    """The linker cannot run safely in this process; names the hook contract it relies on, why, and what to do instead."""

    def __init__(self, problem: str, detail: str) -> None:
        product = _data.DATA["product"]["name"]
        hooks = [h for h in _TEMPLATE["hooks"] if h.get("role") == "install-completion"]
        named = hooks[0]["id"] + " (" + hooks[0]["target"] + "): " if hooks else ""
        super().__init__(hooks[0]["id"] if hooks else problem, product + " linker rejection (" + problem + "): " + named + detail)
        self.problem = problem


def current() -> "object | None":
    """The process's linker, once the tree cache built it."""
    return _LIVE.get("linker")


def _path(owner: object, dotted: str) -> object:
    """An attribute path of the engine's objects; a name ending in () is called."""
    for name in dotted.split("."):
        owner = getattr(owner, name[:-2])() if name.endswith("()") else getattr(owner, name)
    return owner


def _kv(transfers) -> object:
    for transfer in transfers:
        if str(getattr(transfer.name, "value", transfer.name)) == _GEOMETRY["kvPool"]:
            return transfer
    return None


class _Core:
    """The behaviour; the engine class is made from it and the engine's base on first access."""

    def _start(self, server_args, params) -> None:
        counter = completion.installed()
        pool = _path(params, _GEOMETRY["pool"])
        if counter is None or getattr(pool, "layer_transfer_counter", None) is not counter:
            raise LinkerRejection(
                "capture-before-install",
                "the worker captured its graphs without the completion counter the graph-capture hook installs"
                " (the hook did not run before capture, or the pool waits on another counter), so a replayed graph"
                " would read restored layers before they land. Instead: load the plugin before the worker starts"
                " (SGLANG_PLUGINS must allow it), or select another cache.",
            )
        self.layer_done_counter = counter
        self._pool = pool
        self._rank = int(_path(params, _GEOMETRY["rank"]))
        self._world = int(_path(params, _GEOMETRY["worldSize"]))
        self._layers = int(getattr(pool, _GEOMETRY["layers"]))
        self._page_bytes = int(getattr(pool, _GEOMETRY["pageBytes"]))
        pages = int(getattr(pool, _GEOMETRY["pages"]))
        self._namespace = {
            "model": str(getattr(server_args, "model_path", "model"))[:256],
            "layout": ("tp" + str(self._rank) + "of" + str(self._world) + "-layers" + str(self._layers) + "-bytes" + str(self._page_bytes))[:256],
            "blockSize": int(_path(params, _GEOMETRY["pageSize"])),
        }
        self._deadline_ms = int(os.environ.get(DEADLINE_ENV, str(_GEOMETRY["lookupDeadlineMs"])))
        self._layer_wait_s = float(os.environ.get(LAYER_WAIT_ENV, "30"))
        self._client = manager.connect("linker")
        self._registered = self._client.register_pages(self._page_bytes, pages, self._layers)
        # rid -> [ticket, keys, result or None]; bounded by the requests the scheduler holds.
        self._tickets: "dict[str, list]" = {}
        self._answered: "dict[str, bool]" = {}
        self._queued: "dict[str, tuple]" = {}
        self._completed_loads: "queue.Queue[list]" = queue.Queue()
        self._completed_offloads: "queue.Queue[bool]" = queue.Queue()
        self._loads: "queue.Queue" = queue.Queue()
        self._offloads: "queue.Queue" = queue.Queue()
        self._busy = threading.Condition()
        self._in_flight = 0
        # rid -> started load batches not yet drained (bounded by the batches in flight).
        self._running: "dict[str, int]" = {}
        self._closed = False
        self._early = False
        self._threads = [
            threading.Thread(target=self._work, args=(self._loads, self._run_load), name=__package__ + "-load", daemon=True),
            threading.Thread(target=self._work, args=(self._offloads, self._run_offload), name=__package__ + "-offload", daemon=True),
        ]
        for thread in self._threads:
            thread.start()
        _LIVE["linker"] = self

    # ---- lookup: one ticket per request, polled, never blocking ----

    def lookup(self, rid, transfers):
        transfer = _kv(transfers)
        keys = [str(k) for k in (transfer.keys if transfer is not None else [])]
        entry = self._tickets.get(rid)
        if entry is not None and entry[1] != keys:
            self._drop_ticket(rid)
            entry = None
        if entry is None:
            if not keys:
                self._answered[rid] = True
                return []
            ticket = self._client.lookup(self._namespace, keys, str(rid), rank=self._rank, world_size=self._world, deadline_ms=self._deadline_ms)
            entry = [ticket, keys, None]
            self._tickets[rid] = entry
        if entry[2] is None:
            entry[2] = entry[0].poll()
        result = entry[2]
        # Sticky until the admission decision: a round in which any lookup was pending defers
        # (an early lookup, at enqueue, is not one the admission waits for).
        if not self._early:
            self._answered[rid] = self._answered.get(rid, True) and result is not None
        if result is None or result.state != "ready" or not result.boundary:
            return []
        return list(range(1, min(int(result.boundary), len(keys)) + 1))

    @contextlib.contextmanager
    def early(self):
        """Lookups made inside are early (the enqueue warm-up): they open tickets, decide nothing."""
        self._early = True
        try:
            yield
        finally:
            self._early = False

    def answered(self, rid) -> bool:
        """Whether every lookup for rid since the last admission decision had its answer (consumed by that decision)."""
        return self._answered.pop(rid, True)

    def settle(self, rid) -> None:
        """After admission: a lookup no load took from gives its leases back (an unselected lookup)."""
        if rid not in self._queued and rid in self._tickets:
            self._drop_ticket(rid)

    def _drop_ticket(self, rid) -> None:
        """A pending ticket is cancelled, a ready one released; a miss, timeout or cancellation holds nothing."""
        entry = self._tickets.pop(rid, None)
        if entry is None:
            return
        if entry[2] is None:
            entry[2] = entry[0].poll()
        if entry[2] is None:
            self._client.cancel(entry[0])
        elif entry[2].state == "ready":
            self._client.release(entry[0])

    # ---- load: queued, started as one batch, drained before it completes ----

    def load(self, rid, transfers):
        transfer = _kv(transfers)
        entry = self._tickets.get(rid)
        if transfer is None or entry is None or entry[2] is None or entry[2].state != "ready":
            return False
        keys = [str(k) for k in transfer.keys]
        pages = [int(p) for p in transfer.device_indices]
        if not keys or len(keys) != len(pages) or keys != entry[1][:len(keys)] or len(keys) > int(entry[2].boundary):
            return False
        if rid in self._queued:
            raise RuntimeError(_data.DATA["product"]["name"] + " load for rid=" + repr(rid) + " is already queued")
        self._queued[rid] = (entry, pages)
        return True

    def start_layer_wise_loading(self):
        if not self._queued:
            return -1
        index = self.layer_done_counter.update_producer()
        batch = []
        queued, self._queued = self._queued, {}
        for rid, (entry, pages) in queued.items():
            self._tickets.pop(rid, None)
            batch.append((rid, self._client.restore(entry[0], pages), pages))
        with self._busy:
            self._in_flight += 1
            for rid, _restore, _pages in batch:
                self._running[rid] = self._running.get(rid, 0) + 1
        self._loads.put((index, batch))
        return index

    def _run_load(self, job) -> None:
        index, batch = job
        failed = None
        try:
            for layer in range(self._layers):
                for rid, restore, pages in batch:
                    if failed is None and not restore.wait_layer(layer, self._layer_wait_s):
                        failed = "the restore of " + str(rid) + " did not deliver layer " + str(layer)
                    if failed is None:
                        for page in pages:
                            self._pool.write_page(layer, page, self._registered.page(page, layer))
                if failed is None:
                    self.layer_done_counter.complete(index, layer)
        except Exception as error:  # noqa: BLE001 - a load failure is the forward's to raise, never a silent read
            failed = failed or repr(error)
        if failed is not None:
            self.layer_done_counter.fail(index, failed)
        for rid, restore, _pages in batch:
            # Drained: the Manager answered the restore (or the connection to it is gone), so no
            # write into these pages can still land. No timeout frees them earlier.
            try:
                while restore.wait(self._layer_wait_s) is None:
                    pass
                lost = restore.failed_blocks()
            except Exception as error:  # noqa: BLE001 - a lost connection also ends every write
                lost = [repr(error)]
            if lost and failed is None:
                failed = "blocks " + repr(list(lost)) + " of " + str(rid) + " failed"
                self.layer_done_counter.fail(index, failed)
        # Reported only now: every restore of the batch has drained.
        with self._busy:
            for rid, _restore, _pages in batch:
                left = self._running.get(rid, 0) - 1
                if left > 0:
                    self._running[rid] = left
                else:
                    self._running.pop(rid, None)
            self._busy.notify_all()
        self._completed_loads.put([rid for rid, _r, _p in batch])

    def cancel_queued_load(self, rid):
        self._answered.pop(rid, None)
        queued = self._queued.pop(rid, None)
        if queued is not None:
            self._client.release(queued[0][0])
            return True
        self._drop_ticket(rid)
        return False

    def drain(self, rid) -> None:
        """The abort path: rid's lookup and queued load are cancelled, then this waits until every
        started restore of rid drained (no write into its pages can still land). No timeout: a
        page freed while a restore may write it is what this prevents."""
        self.cancel_queued_load(rid)
        with self._busy:
            self._busy.wait_for(lambda: rid not in self._running)

    def num_completed_loads(self):
        return self._completed_loads.qsize()

    def pop_completed_load(self):
        return self._completed_loads.get_nowait()

    # ---- offload: the pool's pages copied to the registered pages, then saved ----

    def offload(self, transfers):
        transfer = _kv(transfers)
        if transfer is None or not transfer.keys:
            return False
        pages = [int(p) for p in transfer.device_indices]
        for page in pages:
            for layer in range(self._layers):
                self._registered.page(page, layer)[:] = self._pool.page(layer, page)
        save = self._client.save(self._namespace, [str(k) for k in transfer.keys], pages)
        with self._busy:
            self._in_flight += 1
        self._offloads.put(save)
        return True

    def _run_offload(self, save) -> None:
        """True once every block is stored (or was already); a failed or unanswered save is False."""
        try:
            result = save.wait(self._layer_wait_s)
            blocks = (result or {}).get("blocks") or []
            stored = bool(blocks) and all(b in ("stored", "deduplicated") or str(b).startswith("staged:") for b in blocks)
        except Exception:  # noqa: BLE001 - a failed save is a False result, the engine unpins
            stored = False
        self._completed_offloads.put(stored)

    def num_completed_offloads(self):
        return self._completed_offloads.qsize()

    def pop_completed_offload(self):
        return self._completed_offloads.get_nowait()

    # ---- quiescing ----

    def _work(self, jobs, run) -> None:
        while True:
            job = jobs.get()
            if job is None:
                return
            try:
                run(job)
            finally:
                with self._busy:
                    self._in_flight -= 1
                    self._busy.notify_all()

    def _quiesce(self) -> None:
        with self._busy:
            self._busy.wait_for(lambda: self._in_flight == 0)
        for rid in list(self._queued):
            self._client.release(self._queued.pop(rid)[0][0])
        for rid in list(self._tickets):
            self._drop_ticket(rid)
        self._answered.clear()

    def reset(self):
        self._quiesce()
        self.layer_done_counter.reset()

    def close(self):
        if self._closed:
            return
        self._quiesce()
        self._closed = True
        self._loads.put(None)
        self._offloads.put(None)
        self._client.close()
        if _LIVE.get("linker") is self:
            del _LIVE["linker"]


def _linker_class(spec: dict) -> type:
    base = getattr(importlib.import_module(spec["base"]["module"]), spec["base"]["name"])
    missing = sorted((set(spec["methods"]) | set(getattr(base, "__abstractmethods__", ()))) - set(vars(_Core)))
    if missing:
        raise LinkerRejection("linker-shape", "the engine's " + spec["base"]["name"] + " asks for methods this adapter does not implement: " + ", ".join(missing) + ". Instead: run the pinned engine, or select another cache.")

    def __init__(self, server_args, params, *args, **kwargs):
        base.__init__(self)
        self._start(server_args, params)

    return type(base)(spec["className"], (_Core, base), {"__init__": __init__, "__module__": __name__})


def __getattr__(name: str):
    spec = _LINKERS.get(name)
    if spec is None or spec["base"] is None:
        raise AttributeError("module " + __name__ + " has no attribute " + name)
    cls = _linker_class(spec)
    globals()[name] = cls
    return cls
`;
