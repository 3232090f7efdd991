"""A viewer request's parameters read and checked, its errors, and texts shortened for
the page."""

from __future__ import annotations

import json
from typing import Any

from .._labels import JudgeVerdict

SHOWN_TEXT = 4_000
"""The longest text of a verdict the review page is sent (a chunk, a claim, a reference)."""
SHOWN_CHUNKS = 50
"""The most chunks of a claim's context the review page is sent."""


class Encoded(dict):  # type: ignore[type-arg]
    """An answer whose JSON is already made (``text``, sent as it is); read as a dict."""

    def __init__(self, data: dict[str, Any], text: str):
        super().__init__(data)
        self.text = text


class NotFound(Exception):
    """A path outside the folder, or a file it does not hold."""


class BadRequest(Exception):
    """A parameter missing or out of range; its text says which."""


def one(params: dict[str, list[str]], name: str) -> str:
    found = params.get(name)
    if not found or not found[0]:
        raise BadRequest(f"missing parameter {name!r}")
    return found[0]


def whole(params: dict[str, list[str]], name: str, default: int) -> int:
    found = params.get(name)
    if not found:
        return default
    try:
        value = int(found[0])
    except ValueError:
        raise BadRequest(f"{name} must be a whole number; got {found[0]!r}") from None
    if value < 0:
        raise BadRequest(f"{name} must be 0 or more; got {value}")
    return value


def shown(v: JudgeVerdict) -> dict[str, Any]:
    """A verdict as the review page gets it: every text cut to `SHOWN_TEXT`, at most
    `SHOWN_CHUNKS` chunks, with its ``key`` (the label names the verdict by it) and
    ``shortened`` when anything was cut."""
    found = v.model_dump(mode="json")
    context = [short(c, SHOWN_TEXT) for c in v.context[:SHOWN_CHUNKS]]
    if len(v.context) > SHOWN_CHUNKS:
        context.append(f"… and {len(v.context) - SHOWN_CHUNKS} more chunks")
    for name in ("text", "input", "reference", "reason"):
        found[name] = short(found[name], SHOWN_TEXT)
    shortened = context != v.context or any(
        found[n] != getattr(v, n) for n in ("text", "input", "reference", "reason")
    )
    return found | {"context": context, "key": v.key, "shortened": shortened}


def short(value: Any, limit: int = 300) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"
