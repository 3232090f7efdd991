"""The fast path of the ranking scorers: one CSR batch per block of runs, shared by every
ranking metric (the ranked ids by the ID scorers too), each metric one kernel call.

The steps build a one-query batch per run and metric (`ranking_metric`); the kernel's
per-query sums run in rank order either way, so the values are the same to the bit.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from .._checks import clip_scaled
from .._engine import FastPath, Memo, Outcome, register_fast_path
from .._i18n import t
from .._ranking._batch import NOT_JUDGED, pool_grades
from .._ranking._kernel import Metric, RankedBatch, parse_metric
from .._types import ScorerRun
from ._fast_ids import shared_details, shared_ranked
from ._options import run_languages
from ._ranked_ids import RankedIds
from ._ranking import ANY_POSITIVE

if TYPE_CHECKING:
    import numpy as np
else:
    from .._lazy import np


@dataclass
class RankingBlock:
    """The runs of a block that have ranked ids, as one batch.

    Attributes:
        slots: The block position of each query of ``batch``.
        batch: Their ranked grades, judgements and ideal gains.
        ranks: Each query's 1-based ranks of its relevant retrieved ids, as its reasons
            write them (one text shared by every metric's reason).
    """

    slots: list[int]
    batch: RankedBatch
    ranks: list[str]


def ranking_block(ranked: Sequence[RankedIds | None]) -> RankingBlock | None:
    """The `RankingBlock` of the runs with ranked ids (None when there are none)."""
    slots = [i for i, ids in enumerate(ranked) if ids is not None]
    if not slots:
        return None
    lengths, grades, judged_lengths, judged, ideal_lengths, ideal = [], [], [], [], [], []
    unranked: list[bool] = []
    for slot in slots:
        ids = ranked[slot]
        assert ids is not None
        # an empty ranking: trec_eval -c's stand-in document, as `single_query_batch`
        ranked_grades = list(map(ids.grades.get, ids.retrieved_ids, _UNJUDGED)) or [NOT_JUDGED]
        unranked.append(not ids.retrieved_ids)
        lengths.append(len(ranked_grades))
        grades.extend(ranked_grades)
        values = list(ids.grades.values())
        judged_lengths.append(len(values))
        judged.extend(values)
        gains = sorted((g for g in values if g > 0), reverse=True)
        ideal_lengths.append(len(gains))
        ideal.extend(gains)
    grade_array = pool_grades(np.asarray(grades, dtype=np.float64))
    judged_array = np.asarray(judged, dtype=np.float64)
    judged_offsets = _offsets(judged_lengths)
    queries = np.repeat(np.arange(len(slots)), judged_lengths)
    count = len(slots)
    batch = RankedBatch(
        offsets=_offsets(lengths),
        grades=grade_array,
        num_rel=np.bincount(queries[judged_array >= ANY_POSITIVE], minlength=count),
        ideal_offsets=_offsets(ideal_lengths),
        ideal_gains=np.asarray(ideal, dtype=np.float64),
        relevance_level=ANY_POSITIVE,
        num_nonrel=np.bincount(
            queries[(judged_array >= 0) & (judged_array < ANY_POSITIVE)], minlength=count
        ),
        judged_offsets=judged_offsets,
        judged_grades=judged_array,
        missing=np.array(unranked, dtype=bool),
    )
    relevant = np.flatnonzero(grade_array > 0)
    cuts = np.searchsorted(relevant, batch.offsets)
    positions = (batch.rank0[relevant] + 1).tolist()
    ranks = [
        str(positions[a:b]) for a, b in zip(cuts[:-1].tolist(), cuts[1:].tolist(), strict=True)
    ]
    return RankingBlock(slots, batch, ranks)


_UNJUDGED = itertools.repeat(NOT_JUDGED)
"""The grade of a retrieved id without a judgement, for as many ids as there are."""


def _offsets(lengths: list[int]) -> np.ndarray:
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return offsets


@dataclass(frozen=True)
class RankingFastPath:
    """One ranking metric for the runs of a block whose ids the steps would rank."""

    name: str
    metric: Metric
    scale: float
    language: str
    inline: ClassVar[bool] = True  # linear in the ids: no thread needed

    def score(self, runs: Sequence[ScorerRun], memo: Memo) -> list[Outcome | None]:
        ranked = shared_ranked(runs, memo)
        if "ranking_block" not in memo:
            memo["ranking_block"] = ranking_block(ranked)
        block: RankingBlock | None = memo["ranking_block"]
        out: list[Outcome | None] = [None] * len(runs)
        if block is None:
            return out
        values = block.batch.values(self.metric).tolist()
        languages = run_languages(runs, self.language, memo)
        for query, slot in enumerate(block.slots):
            ids = ranked[slot]
            assert ids is not None
            score = clip_scaled(values[query], self.scale)
            reason = t(
                languages[slot],
                "ranking",
                metric=self.name,
                value=f"{score:g}",
                ranks=block.ranks[query],
                retrieved=len(ids.retrieved_ids),
                relevant=len(ids.relevant_ids),
            )
            out[slot] = (score, reason, shared_details(ids))
        return out


@register_fast_path("ranking")
def _plugin(options: Any) -> FastPath:
    name, opts = options
    return RankingFastPath(name, parse_metric(name), opts.scale, opts.language)
