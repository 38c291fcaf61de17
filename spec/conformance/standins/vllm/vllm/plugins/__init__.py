"""General plugins: every entry point of vllm.general_plugins (allowlist VLLM_PLUGINS) is loaded
and called in every process, once per process (a module-level plugins_loaded flag); a failing
plugin is logged and ignored."""

import logging
import os
from importlib.metadata import entry_points

GROUP = "vllm.general_plugins"
logger = logging.getLogger(__name__)
plugins_loaded = False


def load_general_plugins():
    global plugins_loaded
    if plugins_loaded:
        return
    plugins_loaded = True
    allowed = os.environ.get("VLLM_PLUGINS")
    names = None if allowed is None else {n.strip() for n in allowed.split(",") if n.strip()}
    for ep in sorted(entry_points(group=GROUP), key=lambda e: e.name):
        if names is not None and ep.name not in names:
            continue
        try:
            ep.load()()
        except Exception:  # noqa: BLE001
            logger.exception("plugin %s failed", ep.name)
