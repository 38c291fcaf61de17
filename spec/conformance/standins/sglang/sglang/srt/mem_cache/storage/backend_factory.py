"""HiCache storage backend factory. register_backend(name, module_path, class_name) is a lazy
classmethod (re-registration overwrites with a warning); create_backend builds a registered name
through a fixed list of built-in constructors, so a third-party name fails there; the `dynamic`
backend reads backend_name, module_path and class_name from extra_config, requires a subclass of
HiCacheStorage and calls cls(storage_config, kwargs)."""

import importlib
import logging

from ..hicache_storage import HiCacheStorage

logger = logging.getLogger(__name__)


class StorageBackendFactory:
    _registry = {}

    @staticmethod
    def _load_backend_class(module_path, class_name, backend_name):
        module = importlib.import_module(module_path)
        backend_class = getattr(module, class_name)
        if not issubclass(backend_class, HiCacheStorage):
            raise TypeError("Backend class " + class_name + " must inherit from HiCacheStorage")
        return backend_class

    @classmethod
    def register_backend(cls, name, module_path, class_name):
        if name in cls._registry:
            logger.warning("Backend %r is already registered, overwriting", name)
        cls._registry[name] = (module_path, class_name)

    @classmethod
    def create_backend(cls, backend_name, storage_config, mem_pool_host, **kwargs):
        if backend_name in cls._registry:
            module_path, class_name = cls._registry[backend_name]
            backend_class = cls._load_backend_class(module_path, class_name, backend_name)
            if backend_name == "file":
                return backend_class(storage_config)
            raise ValueError("Unknown built-in backend: " + backend_name)
        if backend_name == "dynamic" and storage_config.extra_config is not None:
            config = storage_config.extra_config
            for field in ("backend_name", "module_path", "class_name"):
                if field not in config:
                    raise ValueError("Missing required field " + repr(field) + " in backend config for 'dynamic' backend")
            backend_class = cls._load_backend_class(config["module_path"], config["class_name"], config["backend_name"])
            return backend_class(storage_config, kwargs)
        raise ValueError("Unknown storage backend " + repr(backend_name))


StorageBackendFactory.register_backend("file", "sglang.srt.mem_cache.hicache_storage", "HiCacheFile")
