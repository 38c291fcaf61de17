"""Stand-in SGLang, written for the conformance suite from the engine's documented behaviour.

Only what the adapters touch exists; each module's docstring names the fact it reproduces.
The version is the pinned one unless STANDIN_SGLANG_VERSION says otherwise (engine wheels are
often versioned with a local part, e.g. 0.5.21+cu128).
"""

import os

__version__ = os.environ.get("STANDIN_SGLANG_VERSION", "0.5.21")
