/** The completion primitives the graph-capture hook installs before capture (CPU: per-layer flags in shared memory). */
export const COMPLETION_PY = String.raw`"""Per-layer completion flags in shared memory, installed on the KV pool before graph capture.

SGLang's KV pool calls layer_transfer_counter.wait_until(layer) before it reads a layer, and the
Unified tree registers its linker's layer_done_counter there when the tree is built, which is
after the worker captured its graphs. A captured graph keeps waiting on what it captured, so the
hook on graph capture installs the counter first (install) and the linker adopts that same
object (installed): the flags a replay waits on are the flags a restore sets.

The flags are one byte per layer for each of SLOTS load batches, in a shared anonymous mapping
that never moves (on a GPU: mapped memory a captured stream wait reads; a later step). A batch
index older than SLOTS batches is refused rather than aliased.
"""

import mmap
import os
import time

from . import _data

_TEMPLATE = _data.DATA["template"]
SLOTS: int = _TEMPLATE["completion"]["slots"]
WAIT_ENV: str = _data.DATA["product"]["envPrefix"] + "_LAYER_WAIT_S"
_INSTALLED: "dict[str, object]" = {}


class LayerLoadFailed(RuntimeError):
    """A layer of a load batch failed, or did not land in time; the forward must not read it."""


def _attribute_path(owner: object, path: str) -> object:
    for name in path.split("."):
        owner = getattr(owner, name, None)
        if owner is None:
            return None
    return owner


class LayerDoneCounter:
    """The engine's counter protocol (update_producer, set_consumer, wait_until, reset) over shared flags."""

    def __init__(self, num_layers: int) -> None:
        self.num_layers = num_layers
        self._flags = mmap.mmap(-1, SLOTS * num_layers)
        self.producer_index = -1
        self.consumer_index = -1
        self._failed: "dict[int, str]" = {}
        self._completed_through = -1

    def _slot(self, index: int) -> int:
        if index < 0 or index > self.producer_index or index <= self.producer_index - SLOTS:
            raise LayerLoadFailed("load batch " + str(index) + " is not one of the last " + str(SLOTS) + " batches (producer at " + str(self.producer_index) + ")")
        return (index % SLOTS) * self.num_layers

    def update_producer(self) -> int:
        """A new load batch: its flags cleared, its index returned."""
        if self.producer_index - self._completed_through >= SLOTS:
            raise LayerLoadFailed(str(SLOTS) + " load batches are in flight; a new one would reuse the flags of one still loading")
        self.producer_index += 1
        base = (self.producer_index % SLOTS) * self.num_layers
        self._flags[base:base + self.num_layers] = bytes(self.num_layers)
        self._failed.pop(self.producer_index, None)
        return self.producer_index

    def set_consumer(self, index: int) -> None:
        self.consumer_index = index

    def complete(self, index: int, layer: int) -> None:
        self._flags[self._slot(index) + layer] = 1
        if layer == self.num_layers - 1:
            self._completed_through = max(self._completed_through, index)

    def fail(self, index: int, reason: str) -> None:
        self._failed[index] = reason
        if len(self._failed) > SLOTS:
            self._failed.pop(min(self._failed))
        self._completed_through = max(self._completed_through, index)

    def done(self, index: int, layer: int) -> bool:
        return self._flags[self._slot(index) + layer] == 1

    def wait_until(self, layer: int) -> None:
        """Returns once the consumer batch's layer landed; LayerLoadFailed if it failed or took too long."""
        index = self.consumer_index
        if index < 0:
            return
        limit = time.monotonic() + float(os.environ.get(WAIT_ENV, "30"))
        pause = 0.00005
        offset = self._slot(index) + layer
        while self._flags[offset] != 1:
            if index in self._failed:
                raise LayerLoadFailed("layer " + str(layer) + " of load batch " + str(index) + " failed: " + self._failed[index])
            if time.monotonic() > limit:
                raise LayerLoadFailed("layer " + str(layer) + " of load batch " + str(index) + " did not land within " + os.environ.get(WAIT_ENV, "30") + " s (" + WAIT_ENV + ")")
            time.sleep(pause)
            pause = min(pause * 2, 0.002)

    def reset(self) -> None:
        self.producer_index = self.consumer_index = self._completed_through = -1
        self._failed.clear()
        self._flags[:] = bytes(len(self._flags))


def install(worker: object) -> "LayerDoneCounter | None":
    """Before capture: the process's counter (made once) registered on the worker's KV pool."""
    pool = _attribute_path(worker, _TEMPLATE["completion"]["pool"])
    if pool is None:
        return None
    counter = _INSTALLED.get("counter")
    if counter is None:
        counter = LayerDoneCounter(int(getattr(pool, _TEMPLATE["completion"]["layers"])))
        _INSTALLED["counter"] = counter
    if getattr(pool, "layer_transfer_counter", None) is None:
        pool.register_layer_transfer_counter(counter)
    return counter


def installed() -> "LayerDoneCounter | None":
    """The counter installed before capture, or None (capture ran without it)."""
    return _INSTALLED.get("counter")
`;
