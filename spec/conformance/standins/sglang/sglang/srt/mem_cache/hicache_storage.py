"""HiCache storage: the abstract backend and its config (extra_config from the command line's
--hicache-storage-backend-extra-config JSON)."""

import abc
import dataclasses
from typing import Optional


@dataclasses.dataclass
class HiCacheStorageConfig:
    tp_rank: int
    tp_size: int
    is_mla_model: bool
    is_page_first_layout: bool
    model_name: Optional[str]
    extra_config: Optional[dict] = None


class HiCacheStorage(abc.ABC):
    def register_mem_pool_host(self, mem_pool_host):
        self.mem_pool_host = mem_pool_host

    @abc.abstractmethod
    def get(self, key, target_location=None): ...

    @abc.abstractmethod
    def batch_get(self, keys, target_locations=None): ...

    @abc.abstractmethod
    def set(self, key, value=None, target_location=None): ...

    @abc.abstractmethod
    def batch_set(self, keys, values=None, target_locations=None): ...

    @abc.abstractmethod
    def exists(self, key): ...


class HiCacheFile(HiCacheStorage):
    def __init__(self, storage_config):
        self.storage_config = storage_config

    def get(self, key, target_location=None):
        return None

    def batch_get(self, keys, target_locations=None):
        return [None for _ in keys]

    def set(self, key, value=None, target_location=None):
        return True

    def batch_set(self, keys, values=None, target_locations=None):
        return True

    def exists(self, key):
        return False
