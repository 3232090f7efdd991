"""The runtime `evals` builds on: the one private `scorers` module it imports.

Everything else `evals` uses is public `scorers` API. Kept here: the engine's entry
(`score_many` with its `Job` and `Scored`, `score_detached`),
running async code from sync callers, the checks of numeric options, an exception's text,
GC pausing for validation, whole-file writes, litellm's import cost, and the rule judge
that stands in for a model in estimates and the fakes.
"""

from __future__ import annotations

from ._atomic import write_atomically
from ._checks import finite, integer, positive
from ._engine import Job, Scored, score_detached, score_many
from ._engine._gc import paused_gc
from ._model import _litellm
from ._prebuilt._rule_judge import rule_answer, supports
from ._reading import exception_text
from ._sync import run_sync
from ._text import normalized_words
from ._types import _json_fallback as json_fallback


def litellm_import() -> _litellm.ImportState:
    """litellm's import in this process: ``loading`` while under way, ``cpu_s`` once done
    (0 before the first request that left the process)."""
    return _litellm.LITELLM_IMPORT


__all__ = [
    "Job",
    "Scored",
    "exception_text",
    "finite",
    "integer",
    "json_fallback",
    "litellm_import",
    "normalized_words",
    "paused_gc",
    "positive",
    "rule_answer",
    "run_sync",
    "score_detached",
    "score_many",
    "supports",
    "write_atomically",
]
