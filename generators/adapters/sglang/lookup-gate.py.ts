/** The admission hook's body: pending lookups defer on every rank, never admitted as misses. */
export const LOOKUP_GATE_PY = String.raw`"""Admission of requests whose lookup may still be pending, with every rank agreeing.

SGLang's admission (PrefillAdder.add_one_req) knows only the prefix match; a lookup the Manager
has not answered yet would be admitted as recompute. The AROUND hook asks the linker whether the
last lookup for the request was answered, and all ranks decide together: the engine's own
collective over the attention/TP groups (the tree's restorable-prefix intersection, a MIN that is
an AND of "answered") runs on every rank for every offered request, so every rank either admits
(the Manager gave them all one boundary) or defers. A deferred request is neither admitted nor a
stop: it stays in the waiting queue and is matched and offered again next round, and the next
candidate is still tried (the adder's own budget verdict is returned). An admitted request whose
lookup no load took gives its leases back. Without the product's linker (another backend) the
original runs untouched.

The opt-in enqueue hook (warm) starts a queued request's lookup at once, the way SGLang's own
HiCache prefetch matches a request when it is queued: the match reaches the linker's lookup,
which opens the ticket, so by the request's first admission round the Manager has usually
answered. That early lookup does not count as one the admission must wait for; correctness is
the same without it.
"""

from . import _data, linker

_GATE = _data.DATA["template"]["lookupGate"]
_WARM = _data.DATA["template"]["warmup"]


def _path(owner: object, dotted: str) -> object:
    for name in dotted.split("."):
        owner = getattr(owner, name, None)
        if owner is None:
            return None
    return owner


def around(original, adder, req, *args, **kwargs):
    link = linker.current()
    wrapper = _path(adder, _GATE["treeLinker"])
    if link is None or wrapper is None or getattr(wrapper, "cache_linker", None) is not link:
        return original(adder, req, *args, **kwargs)
    rid = getattr(req, _GATE["requestId"])
    answered = link.answered(rid)
    everyone = getattr(wrapper, _GATE["agree"])([1] if answered else [], num_pages=1, device_hit_pages=0)
    if everyone != 1:
        return getattr(adder, _GATE["verdict"])()
    try:
        return original(adder, req, *args, **kwargs)
    finally:
        link.settle(rid)


def warm(scheduler, req) -> None:
    """After the request is queued: its match (and so its lookup) now, all ranks alike."""
    link = linker.current()
    tree = getattr(scheduler, _WARM["treeCache"], None)
    wrapper = _path(scheduler, _WARM["treeLinker"])
    if link is None or wrapper is None or getattr(wrapper, "cache_linker", None) is not link:
        return
    with link.early():
        getattr(req, _WARM["match"])(tree)
`;
