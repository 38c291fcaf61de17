"""HiCache storage: the pool transfers the Unified linker receives, the abstract backend and its config (extra_config from the command line's
--hicache-storage-backend-extra-config JSON)."""

import abc
import dataclasses
import enum
from typing import Optional


class PoolName(str, enum.Enum):
    """The device pools a linker transfer names (the Unified linker supports FULL and SWA trees)."""

    KV = "kv"
    SWA = "swa"


@dataclasses.dataclass
class PoolTransfer:
    """One pool's part of a linker call (fact: hicache_storage.PoolTransfer): the storage keys
    (page hashes) and, for loads and offloads, the device page of each key."""

    name: PoolName
    keys: list
    device_indices: Optional[list] = None


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
