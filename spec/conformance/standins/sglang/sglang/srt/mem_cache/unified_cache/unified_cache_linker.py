"""The Unified cache linker base: eleven abstract methods. The engine's linker factory refuses a
class that is still abstract."""

import abc
import inspect


class UnifiedCacheLinker(abc.ABC):
    def __init__(self, *args, **kwargs):
        self.args = args

    @abc.abstractmethod
    def lookup(self, rid, transfers): ...

    @abc.abstractmethod
    def load(self, rid, transfers): ...

    @abc.abstractmethod
    def start_layer_wise_loading(self, rid): ...

    @abc.abstractmethod
    def cancel_queued_load(self, rid): ...

    @abc.abstractmethod
    def num_completed_loads(self): ...

    @abc.abstractmethod
    def pop_completed_load(self): ...

    @abc.abstractmethod
    def offload(self, rid, transfers): ...

    @abc.abstractmethod
    def num_completed_offloads(self): ...

    @abc.abstractmethod
    def pop_completed_offload(self): ...

    @abc.abstractmethod
    def reset(self): ...

    @abc.abstractmethod
    def close(self): ...


def create_linker(cls, *args, **kwargs):
    if not (isinstance(cls, type) and issubclass(cls, UnifiedCacheLinker)):
        raise TypeError(repr(cls) + " is not a UnifiedCacheLinker")
    if inspect.isabstract(cls):
        raise TypeError(cls.__name__ + " is abstract: " + ", ".join(sorted(cls.__abstractmethods__)))
    return cls(*args, **kwargs)
