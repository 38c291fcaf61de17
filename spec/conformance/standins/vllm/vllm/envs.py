"""Environment switches as vLLM reads them: VLLM_ALLOW_RUNTIME_LORA_UPDATING is
value.strip().lower() in ("1", "true")."""

import os


def allow_runtime_lora_updating():
    return os.environ.get("VLLM_ALLOW_RUNTIME_LORA_UPDATING", "0").strip().lower() in ("1", "true")
