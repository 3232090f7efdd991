"""`SummaryBuilder` and `summarize`: a run's `RunSummary` from its finished items."""

from __future__ import annotations

import math
from array import array
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from scorers import MIN_PAIRED, ScoreResult, detectable_change, mean_ci
from scorers._internal import Outcome

from .._file._items import ItemResult
from ._summaries import CallTotals, RunSummary, ScorerSummary, two_level_ci


class _Column:
    """One scorer's results as they arrive: counts, scores, samplings, this run's calls."""

    __slots__ = ("n_error", "n_skipped", "samplings", "scores", "summary")

    def __init__(self) -> None:
        self.summary = ScorerSummary()
        self.scores = array("d")
        self.n_skipped = self.n_error = 0
        self.samplings: list[dict[str, Any]] = []

    def add(self, result: ScoreResult, counted: bool) -> None:
        status = result.status
        if status == "scored":
            self.add_scored(result.score, result.details)  # type: ignore[arg-type]
        elif status == "skipped":
            self.n_skipped += 1
        else:
            self.n_error += 1
        if counted and result.judge_calls:
            for call in result.judge_calls:
                self.summary.add(call)

    def add_scored(self, score: float, details: dict[str, Any]) -> None:
        self.scores.append(score)
        sampling = details.get("sampling") if details else None
        if isinstance(sampling, dict) and "agreement" in sampling:
            self.samplings.append(sampling)

    def finish(self, scale: float | None) -> ScorerSummary:
        """Mean and CI (cut to ``[0, scale]``), and the judge-noise interval."""
        s = self.summary
        s.n_scored, s.n_skipped, s.n_error = len(self.scores), self.n_skipped, self.n_error
        s.mean, s.ci_low, s.ci_high = mean_ci(self.scores, None if scale is None else (0, scale))
        if len(self.scores) >= MIN_PAIRED and s.mean is not None:
            deviations = [v - s.mean for v in self.scores]
            sd = math.sqrt(math.fsum(x * x for x in deviations) / (len(deviations) - 1))
            if sd > 0:  # every item alike says nothing of how a future run's would vary
                s.detectable = detectable_change(math.sqrt(2) * sd, len(self.scores))
        if self.samplings:
            agreements = [float(x["agreement"]) for x in self.samplings]
            s.judge_agreement = math.fsum(agreements) / len(agreements)
            factor = 1.0 if scale is None else scale
            interval = two_level_ci(
                [[v * factor for v in x["sample_scores"]] for x in self.samplings]
            )
            if interval is not None:
                s.ci_low_judge, s.ci_high_judge = interval
        return s


class SummaryBuilder:
    """A run's `RunSummary`, built item by item: what it keeps is a float per scored
    result and counters, not the items (a million-item run summarises in ~30 MB).

    Scores and counts cover every item added; model calls, tokens and cost only what ran
    in this invocation (``old`` names what of an item an earlier run did: ``"<target>"``
    for its target's calls, scorer ids for kept results). A scorer that could not run
    because its item failed first (target error, timeout) counts as an error. The mean
    and its interval do not depend on the order items arrive in (exact sums).

    Args:
        scorer_ids: The run's scorers, in order (results of other scorers, kept from an
            earlier run, get a summary too, after them).
        scales: Each scorer's scale (its interval is cut to ``[0, scale]``); None: the
            scales the items recorded.
    """

    def __init__(self, scorer_ids: Sequence[str], scales: Mapping[str, float] | None = None):
        self.scorer_ids = list(scorer_ids)
        self.scales = None if scales is None else dict(scales)
        self._recorded: dict[str, float] | None = None
        self._columns: dict[str, _Column] = {sid: _Column() for sid in scorer_ids}
        self._unrun: Counter[str] = Counter()
        self._target, self._other = CallTotals(), CallTotals()
        self.items = self.item_errors = 0

    def add(self, item: ItemResult, old: Collection[str] = ()) -> None:
        """Count one finished item (``old``: what of it an earlier run did)."""
        self.items += 1
        if item.error is not None:
            self.item_errors += 1
            self._unrun.update(sid for sid in self.scorer_ids if sid not in item.scorer_results)
        if item.target_calls and old is not EVERYTHING and "<target>" not in old:
            for call in item.target_calls:
                self._target.add(call)
        if item.other_calls and old is not EVERYTHING:
            for call in item.other_calls:
                self._other.add(call)
        if self.scales is None:
            self._recorded = note_scales(self._recorded, item)
        columns = self._columns
        for sid, result in item.scorer_results.items():
            column = columns.get(sid)
            if column is None:
                column = columns[sid] = _Column()
            column.add(result, old is not EVERYTHING and sid not in old)

    def add_outcomes(self, found: Sequence[Mapping[str, Outcome]]) -> None:
        """Count model-free items, each as its scorers' fast-path outcomes by scorer id:
        what `add` counts of the `ItemResult`s they make (no error, no model call)."""
        self.items += len(found)
        columns = self._columns
        for outcomes in found:
            for sid, (score, _, details) in outcomes.items():
                column = columns.get(sid)
                if column is None:
                    column = columns[sid] = _Column()
                if "sampling" in details:
                    column.add_scored(score, details)
                else:
                    column.scores.append(score)

    def finish(
        self,
        wall_time_s: float,
        resumed_items: int = 0,
        rescored_items: int = 0,
        rescored_for_config: int = 0,
    ) -> RunSummary:
        """The summary of every item added."""
        summary = RunSummary(
            items=self.items,
            wall_time_s=wall_time_s,
            resumed_items=resumed_items,
            rescored_items=rescored_items,
            rescored_for_config=rescored_for_config,
            item_errors=self.item_errors,
        )
        summary.merge(self._other)
        summary.target.merge(self._target)
        scales = self.scales if self.scales is not None else self._recorded
        per: dict[str, ScorerSummary] = {}
        for sid, column in self._columns.items():
            per[sid] = s = column.finish((scales or {}).get(sid))
            s.n_error += self._unrun[sid]
            summary.merge(s)
        summary.merge(summary.target)
        summary.scorers = per
        return summary


EVERYTHING: frozenset[str] = frozenset({"<everything>"})
"""``old`` for an item taken whole from an earlier run: none of its calls are this run's."""


def summarize(
    items: Sequence[ItemResult],
    scorer_ids: Sequence[str],
    wall_time_s: float,
    resumed: Collection[str] = (),
    scales: Mapping[str, float] | None = None,
    carried: Mapping[str, Collection[str]] | None = None,
    rescored_for_config: int = 0,
) -> RunSummary:
    """The `RunSummary` of finished items (see `SummaryBuilder`): ``resumed`` holds the
    ids of items taken whole from an earlier results file, ``carried[item_id]`` what an
    earlier run did of an item partly re-scored; ``scales`` None: the scales the items
    recorded."""
    builder = SummaryBuilder(scorer_ids, scales)
    carried = carried or {}
    for item in items:
        item_id = item.item.id
        builder.add(item, EVERYTHING if item_id in resumed else carried.get(item_id, ()))
    return builder.finish(wall_time_s, len(resumed), len(carried), rescored_for_config)


def recorded_scales(items: Sequence[ItemResult]) -> dict[str, float] | None:
    """The scorers' scales as the items' results recorded them (1 where not listed), or
    None when no item recorded any (a file written before scales were kept)."""
    found: dict[str, float] | None = None
    for item in items:
        found = note_scales(found, item)
    return found


def note_scales(found: dict[str, float] | None, item: ItemResult) -> dict[str, float] | None:
    """``found`` with the scales ``item`` recorded (the first recorded per scorer wins;
    1 where not listed); ``found`` as it is when the item recorded none."""
    if item.scales is None:
        return found
    found = {} if found is None else found
    for sid in item.scorer_results:
        found.setdefault(sid, item.scales.get(sid, 1.0))
    return found


def recorded_scale(items: Sequence[ItemResult], scorer_id: str) -> float:
    """The scale the first item scored by ``scorer_id`` recorded for it (1 by default)."""
    return next(
        ((r.scales or {}).get(scorer_id, 1.0) for r in items if scorer_id in r.scorer_results),
        1.0,
    )
