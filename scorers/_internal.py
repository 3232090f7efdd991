"""What `evals` shares with `scorers` beyond the public API, as pydantic's packages share
``pydantic._internal``: the one private module `evals` may import (a test holds it so).

Checks of numeric options (`finite`, `integer`, `positive`), models from validated values
(`constructed`), running and writing
(`run_sync`, `run_soon`, `on_scorekit_loop`, `write_atomically`, `json_fallback`,
`paused_gc`, `exception_text`, `warn_user`), the offline judge (`rule_answer`,
`judge_contract`, `supports`), the scorer registry (`registry`, `Registered`,
`scorer_overrides`), the registries of every extension kind (`Registry`,
`registries`), and the engine seam `scorers.lowlevel` makes public.
"""

from __future__ import annotations

from ._atomic import write_atomically
from ._caller import warn_user
from ._checks import finite, integer, positive
from ._construct import constructed
from ._declared import args_doc, checked, declared, optional
from ._declared import names as declared_names
from ._engine import (
    FastPath,
    Job,
    Memo,
    Outcome,
    Scored,
    ScoredBlock,
    as_results,
    register_fast_path,
    score_detached,
    score_many,
    with_fast_path,
)
from ._engine._gc import paused_gc
from ._prebuilt._registry import Registered, judge_contract, registry
from ._prebuilt._registry import overrides as scorer_overrides
from ._prebuilt._rule_judge import rule_answer, supports
from ._ranking._measures import MEASURES as TREC_MEASURES
from ._ranking._measures import Measure, register_measure, trec_names
from ._ranking._ranked import Metric, RankedBatch
from ._reading import exception_text
from ._registries import Described, Registry, registries
from ._sync import on_scorekit_loop, run_soon, run_sync
from ._telemetry import current_span
from ._types import ONE_RETRIEVAL
from ._types import _json_fallback as json_fallback

__all__ = [
    "ONE_RETRIEVAL",
    "TREC_MEASURES",
    "Described",
    "FastPath",
    "Job",
    "Measure",
    "Memo",
    "Metric",
    "Outcome",
    "RankedBatch",
    "Registered",
    "Registry",
    "Scored",
    "ScoredBlock",
    "args_doc",
    "as_results",
    "checked",
    "constructed",
    "current_span",
    "declared",
    "declared_names",
    "exception_text",
    "finite",
    "integer",
    "json_fallback",
    "judge_contract",
    "on_scorekit_loop",
    "optional",
    "paused_gc",
    "positive",
    "register_fast_path",
    "register_measure",
    "registries",
    "registry",
    "rule_answer",
    "run_soon",
    "run_sync",
    "score_detached",
    "score_many",
    "scorer_overrides",
    "supports",
    "trec_names",
    "warn_user",
    "with_fast_path",
    "write_atomically",
]
