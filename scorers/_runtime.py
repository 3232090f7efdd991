"""The runtime `evals` builds on: the one private `scorers` module it imports.

Everything else `evals` uses is public `scorers` API. Kept here: running async code from
sync callers, the run's model-call cap, call logs, bounded task maps, garbage-collector
freezing for batches, litellm's import cost, the shapes of dataset fields, and the fence
grammar the fake judge parses.
"""

from __future__ import annotations

from ._checks import finite, integer, optional_integer, optional_positive, positive
from ._engine import Job, Scored, score_detached, score_many
from ._engine._gc import paused_gc
from ._fences import block, fence, tagged
from ._model import _litellm
from ._model._calls import detached_calls, record_calls
from ._model._limits import Budget, run_budget, run_cap
from ._prebuilt._qrels import qrels_scorer
from ._prebuilt._rule_judge import rule_answer, supports
from ._sync import run_sync
from ._tasks import map_bounded, task_group
from ._text import normalized_words
from ._types import EvalItem, to_chunks
from ._types import _json_fallback as json_fallback


def litellm_import_cpu_s() -> float:
    """CPU seconds this process spent importing litellm so far (0 before the first call)."""
    return _litellm.litellm_import_cpu_s


__all__ = [
    "Budget",
    "EvalItem",
    "Job",
    "Scored",
    "block",
    "detached_calls",
    "fence",
    "finite",
    "integer",
    "json_fallback",
    "litellm_import_cpu_s",
    "map_bounded",
    "normalized_words",
    "optional_integer",
    "optional_positive",
    "paused_gc",
    "positive",
    "qrels_scorer",
    "record_calls",
    "rule_answer",
    "run_budget",
    "run_cap",
    "run_sync",
    "score_detached",
    "score_many",
    "supports",
    "tagged",
    "task_group",
    "to_chunks",
]
