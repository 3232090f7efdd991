"""The runtime `evals` builds on: the one private `scorers` module it imports.

Everything else `evals` uses is public `scorers` API (the engine's `score_many` with its
`Job` and `Scored` among it). Kept here: an agent's detached scoring (`score_detached`),
running async code from sync callers, the checks of numeric options, an exception's text,
GC pausing for validation, whole-file writes and the JSON fallback of results files,
warnings that name the user's line, and the rule judge that stands in for a model in estimates and the fakes.
"""

from __future__ import annotations

from ._atomic import write_atomically
from ._caller import warn_user
from ._checks import finite, integer, positive
from ._engine import score_detached
from ._engine._gc import paused_gc
from ._prebuilt._rule_judge import rule_answer, supports
from ._reading import exception_text
from ._sync import run_sync
from ._types import _json_fallback as json_fallback

__all__ = [
    "exception_text",
    "finite",
    "integer",
    "json_fallback",
    "paused_gc",
    "positive",
    "rule_answer",
    "run_sync",
    "score_detached",
    "supports",
    "warn_user",
    "write_atomically",
]
