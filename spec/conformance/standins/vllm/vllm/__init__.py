"""Stand-in vLLM, written for the conformance suite from the engine's documented behaviour.
The version is the pinned one unless STANDIN_VLLM_VERSION says otherwise."""

import os

__version__ = os.environ.get("STANDIN_VLLM_VERSION", "0.31.0")
