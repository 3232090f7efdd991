"""litellm's price list and tokenizer files, read without importing litellm.

Estimates (`evals.estimate_run`, ``scorekit run --estimate``) make no request, so they
must not pay litellm's import (seconds). The price list is the JSON file litellm ships
(`LITELLM_PRICES`), found on disk; tokens are counted by tiktoken with the encodings
litellm ships, the way OpenAI counts a chat prompt.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
from pathlib import Path
from typing import Any

LITELLM_PRICES = "model_prices_and_context_window_backup.json"
"""The price list in litellm's package (what ``LITELLM_LOCAL_MODEL_COST_MAP`` reads)."""

TOKENS_PER_MESSAGE = 3
"""OpenAI's chat overhead: three tokens around each message, three to prime the reply."""


@functools.cache
def _litellm_dir() -> Path | None:
    spec = importlib.util.find_spec("litellm")  # finds the package, does not run it
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


@functools.cache
def _prices() -> dict[str, Any]:
    folder = _litellm_dir()
    try:
        return dict(json.loads((folder / LITELLM_PRICES).read_text("utf-8"))) if folder else {}
    except (OSError, ValueError):
        return {}


def listed_price(model: str) -> tuple[float, float] | None:
    """USD per prompt and per completion token of ``model`` in litellm's price list
    (``provider/name`` or a bare name); None when it is not listed."""
    prices = _prices()
    entry = prices.get(model)
    if entry is None and "/" in model:
        provider, name = model.split("/", 1)
        bare = prices.get(name)
        if isinstance(bare, dict) and bare.get("litellm_provider") == provider:
            entry = bare
    if not isinstance(entry, dict):
        return None
    prompt, completion = entry.get("input_cost_per_token"), entry.get("output_cost_per_token")
    if not isinstance(prompt, (int, float)) or not isinstance(completion, (int, float)):
        return None
    return float(prompt), float(completion)


@functools.cache
def _encoding(name: str) -> Any:
    folder = _litellm_dir()
    if folder is not None:  # litellm's offline copies of tiktoken's files
        os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(folder / "litellm_core_utils/tokenizers"))
    import tiktoken

    return tiktoken.get_encoding(name)


def encoding_name(model: str) -> str:
    """``o200k_base`` for the gpt-4o, gpt-4.1, gpt-5 and o-series families, else
    ``cl100k_base``."""
    name = model.rsplit("/", 1)[-1]
    newer = ("gpt-4o", "gpt-4.1", "gpt-5", "o1", "o3", "o4", "chatgpt-4o")
    return "o200k_base" if name.startswith(newer) else "cl100k_base"


def count_tokens_offline(model: str, messages: list[dict[str, Any]]) -> int:
    """The prompt tokens of ``messages`` by tiktoken, with OpenAI's chat overhead; about
    four characters a token when tiktoken or its files are not at hand."""
    texts = [str(m.get("content") or "") for m in messages]
    try:
        encoding = _encoding(encoding_name(model))
    except Exception:
        return max(1, sum(len(t) for t in texts) // 4)
    words = sum(len(encoding.encode(t, disallowed_special=())) for t in texts)
    roles = sum(len(encoding.encode(str(m.get("role") or ""))) for m in messages)
    return words + roles + TOKENS_PER_MESSAGE * (len(messages) + 1)


__all__ = ["LITELLM_PRICES", "count_tokens_offline", "encoding_name", "listed_price"]
