"""Plugin loading: every entry point of the group runs, ordinary exceptions are logged and
ignored, and only then are the registered hooks applied, once (SGLang's load_plugins)."""

import logging
import os
from importlib.metadata import entry_points

from .hook_registry import HookRegistry

GROUP = "sglang.srt.plugins"
logger = logging.getLogger(__name__)
LOADED = []


def load_plugins():
    allowed = os.environ.get("SGLANG_PLUGINS")
    names = None if allowed is None else {n.strip() for n in allowed.split(",") if n.strip()}
    for ep in sorted(entry_points(group=GROUP), key=lambda e: e.name):
        if names is not None and ep.name not in names:
            continue
        try:
            ep.load()()
            LOADED.append(ep.name)
        except Exception:  # noqa: BLE001 - the engine logs a failing plugin and carries on
            logger.exception("plugin %s failed", ep.name)
    HookRegistry.apply_hooks()
