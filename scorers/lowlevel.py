"""``scorers.lowlevel``: the engine seam scorekit's own runner is built on, public for
people who build on scorekit (as ``anyio.lowlevel`` is for anyio).

The engine:
    `score_many` runs many scorers over many jobs (`Job`, each finished one handed back
    as `Scored`, or a block of model-free ones at once as a `ScoredBlock` of plain
    outcomes), a sequence or a stream (an agent's live scorers are one `score_many`
    over the stream of its answers); `score_detached` scores one run as work that
    outlives its caller; `current_span` is the trace span a job's scores belong under
    (`Job.evaluated`).
Fast paths:
    `register_fast_path` (a decorator of ``factory(options) -> FastPath | None``),
    `with_fast_path` (a factory attaches the plug-in), `FastPath`, `Memo`, `Outcome`; one
    contract test runs every registered plug-in against its scorer's steps.
Ranking measures:
    `TREC_MEASURES` is trec_eval's measures as one table of `Measure` entries (how to
    compute each for a batch of queries, default cutoffs, the mean's kind, the bounds of
    one query's value, per item or not, named sets); `register_measure` adds one, and
    `evaluate_ranking`, `create_ranking_scorer` and ``scorekit trec -m`` see it;
    `trec_names` resolves ``-m`` arguments. A measure computes on the batch API:
    `RankedBatch` (every query's ranked grades as CSR arrays, with ``relevant_in_top``,
    ``per_query``, ``over_num_rel``, ``dcg``) and the parsed `Metric` (cutoff, level,
    parameters). (`scorers.MEASURES` is another table: the string-similarity measures.)

Names this module held before (the option checks, `run_sync`, `write_atomically`,
`rule_answer`, `registry` and the rest) still import from here, with a
`DeprecationWarning` saying where they went; they are scorekit's own helpers, not part
of the seam.
"""

from __future__ import annotations

import warnings
from typing import Any

from ._engine import (
    FastPath,
    Job,
    Memo,
    Outcome,
    Scored,
    ScoredBlock,
    register_fast_path,
    score_detached,
    score_many,
    with_fast_path,
)
from ._ranking._measures import MEASURES as TREC_MEASURES
from ._ranking._measures import Measure, register_measure, trec_names
from ._ranking._ranked import Metric, RankedBatch
from ._telemetry import current_span

__all__ = [
    "TREC_MEASURES",
    "FastPath",
    "Job",
    "Measure",
    "Memo",
    "Metric",
    "Outcome",
    "RankedBatch",
    "Scored",
    "ScoredBlock",
    "current_span",
    "register_fast_path",
    "register_measure",
    "score_detached",
    "score_many",
    "trec_names",
    "with_fast_path",
]

_RENAMED = {"MEASURES": "TREC_MEASURES"}
"""Old names of seam entries (``scorers.MEASURES`` is the similarity measures' table)."""


def __getattr__(name: str) -> Any:
    from . import _internal

    if name in _RENAMED:
        where = f"it is scorers.lowlevel.{_RENAMED[name]}"
    elif name in _internal.__all__ and name not in __all__:
        where = "scorekit's own helper, not part of the engine seam"
    else:
        where = ""
    if where:
        warnings.warn(
            f"scorers.lowlevel.{name} is no longer part of the low-level API ({where}); "
            "it will be removed in a later release",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(_internal, _RENAMED.get(name, name))
    raise AttributeError(f"module 'scorers.lowlevel' has no attribute {name!r}")
