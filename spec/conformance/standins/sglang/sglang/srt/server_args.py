"""Server arguments. prepare_server_args(argv) parses strictly: an unknown token (the `serve`
subcommand of `sglang serve ...`) is a usage error, SystemExit(2). `--config FILE` merges a
YAML-style `key: value` file before the command line."""

import argparse
import dataclasses
from typing import Optional


@dataclasses.dataclass
class ServerArgs:
    model_path: str = "model"
    radix_cache_backend: Optional[str] = None
    enable_unified_cache_external_linker: bool = False
    enable_hierarchical_cache: bool = False
    hicache_storage_backend: Optional[str] = None
    hicache_storage_backend_extra_config: Optional[str] = None
    disaggregation_decode_retraction_backup: Optional[str] = None
    speculative_algorithm: Optional[str] = None
    enable_lora: bool = False
    custom_weight_loader: list = dataclasses.field(default_factory=list)
    disable_radix_cache: bool = False


def _parser():
    parser = argparse.ArgumentParser(prog="sglang")
    parser.add_argument("--config", default=None)
    for field in dataclasses.fields(ServerArgs):
        flag = "--" + field.name.replace("_", "-")
        if field.type is bool or field.default is False:
            parser.add_argument(flag, action="store_true", default=None)
        elif field.name == "custom_weight_loader":
            parser.add_argument(flag, nargs="*", default=None)
        else:
            parser.add_argument(flag, default=None)
    return parser


def _read_config(path):
    values = {}
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if ":" in line and not line.lstrip().startswith("#"):
                key, _, value = line.partition(":")
                value = value.strip().strip("'\"")
                values[key.strip().replace("-", "_")] = True if value == "true" else value
    return values


def prepare_server_args(argv):
    namespace = _parser().parse_args(argv)
    merged = _read_config(namespace.config) if namespace.config else {}
    merged.update({k: v for k, v in vars(namespace).items() if v is not None and k != "config"})
    return ServerArgs(**merged)
