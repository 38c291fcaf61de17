"""The connector factory: register_connector(name, module_path, class_name) refuses a second
registration of a name; create_connector loads kv_connector_module_path first when given, else
the registry, refuses an abstract class and builds cls(config, role, kv_cache_config)."""

import importlib
import inspect


class KVConnectorFactory:
    _registry = {}

    @classmethod
    def register_connector(cls, name, module_path, class_name):
        if name in cls._registry:
            raise ValueError("Connector '" + name + "' is already registered.")
        cls._registry[name] = (module_path, class_name)

    @classmethod
    def get_connector_class(cls, kv_transfer_config):
        name = kv_transfer_config.kv_connector
        module_path = getattr(kv_transfer_config, "kv_connector_module_path", None)
        if module_path:
            return getattr(importlib.import_module(module_path), name)
        if name not in cls._registry:
            raise ValueError("Unsupported connector type: " + repr(name))
        module_path, class_name = cls._registry[name]
        return getattr(importlib.import_module(module_path), class_name)

    @classmethod
    def create_connector(cls, config, role, kv_cache_config):
        connector_cls = cls.get_connector_class(config.kv_transfer_config)
        if inspect.isabstract(connector_cls):
            raise TypeError(connector_cls.__name__ + " is abstract: " + ", ".join(sorted(connector_cls.__abstractmethods__)))
        return connector_cls(config, role, kv_cache_config)
