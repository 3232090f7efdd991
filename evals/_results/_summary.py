"""`summarize`: a run's `RunSummary` from its finished items."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from itertools import chain
from operator import attrgetter, methodcaller

from scorers import ScoreResult

from ._items import ItemResult
from ._stats import RunSummary, ScorerSummary, mean_ci, two_level_ci

_STATUS, _SCORE, _DETAILS = attrgetter("status"), attrgetter("score"), attrgetter("details")
_RESULTS, _CALLS = attrgetter("scorer_results"), attrgetter("judge_calls")
_SAMPLING = methodcaller("get", "sampling")


def _scorer_summary(
    sid: str,
    column: list[ScoreResult],
    items: Sequence[ItemResult],
    old: Callable[[str], Collection[str]],
    scale: float | None,
) -> ScorerSummary:
    """One scorer's counts, mean, CI (cut to ``[0, scale]``) and this run's calls, from
    its ``column`` of results (in C where it can be)."""
    s = ScorerSummary()
    if any(map(_CALLS, column)):
        for item in items:
            result = item.scorer_results.get(sid)
            if result is not None and result.judge_calls and sid not in old(item.item.id):
                for call in result.judge_calls:
                    s.add(call)
    counts = Counter(map(_STATUS, column))  # plain counters: a model's setattr costs more
    s.n_scored, s.n_skipped, s.n_error = counts["scored"], counts["skipped"], counts["error"]
    scored = column if s.n_scored == len(column) else [r for r in column if r.status == "scored"]
    bounds = None if scale is None else (0.0, scale)
    s.mean, s.ci_low, s.ci_high = mean_ci(list(map(_SCORE, scored)), bounds)
    samplings = [
        sampling
        for sampling in filter(None, map(_SAMPLING, map(_DETAILS, scored)))
        if isinstance(sampling, dict) and "agreement" in sampling
    ]
    if samplings:
        s.judge_agreement = math.fsum(float(x["agreement"]) for x in samplings) / len(samplings)
        factor = 1.0 if scale is None else scale
        interval = two_level_ci([[v * factor for v in x["sample_scores"]] for x in samplings])
        if interval is not None:
            s.ci_low_judge, s.ci_high_judge = interval
    return s


def summarize(
    items: Sequence[ItemResult],
    scorer_ids: Sequence[str],
    wall_time_s: float,
    resumed: Collection[str] = (),
    scales: Mapping[str, float] | None = None,
    carried: Mapping[str, Collection[str]] | None = None,
    rescored_for_config: int = 0,
) -> RunSummary:
    """Build the `RunSummary` of finished items.

    Scores and counts cover every item; model calls, tokens and cost only what ran in
    this invocation: not the items in ``resumed`` (taken whole from an earlier results
    file), nor, for items partly re-scored on resume, the scorers in ``carried[item_id]``
    (``"<target>"`` there stands for the target's calls). A scorer that could not run
    because its item failed first (target error, timeout) counts as an error. A
    scorer's confidence interval is cut to ``[0, scale]`` when ``scales`` has it.
    """
    summary = RunSummary(
        items=len(items),
        wall_time_s=wall_time_s,
        resumed_items=len(resumed),
        rescored_items=len(carried or {}),
        rescored_for_config=rescored_for_config,
    )
    if scales is None:  # a summary rebuilt from results files: the scales they recorded
        scales = recorded_scales(items)
    unrun: Counter[str] = Counter()  # scorers that could not run: their item failed first
    everything = frozenset(("<target>", *scorer_ids))
    carried_ids = carried or {}

    def old(item_id: str) -> Collection[str]:
        """What of an item an earlier run did (its calls are not this run's)."""
        return everything if item_id in resumed else carried_ids.get(item_id, ())

    for item in items:
        if item.error is not None:
            summary.item_errors += 1
            unrun.update(sid for sid in scorer_ids if sid not in item.scorer_results)
        if item.target_calls and "<target>" not in old(item.item.id):
            for call in item.target_calls:
                summary.target.add(call)
        if item.other_calls and item.item.id not in resumed:
            for call in item.other_calls:
                summary.add(call)
    # then scorer by scorer, in C where it can be: columns of results, their statuses
    tables = list(map(_RESULTS, items))
    per: dict[str, ScorerSummary] = {}
    for sid in dict.fromkeys(chain(scorer_ids, chain.from_iterable(tables))):
        column = [table[sid] for table in tables if sid in table]
        # a scorer of results only (kept from an earlier run) gets its summary too
        per[sid] = s = _scorer_summary(sid, column, items, old, (scales or {}).get(sid))
        s.n_error += unrun[sid]
        summary.merge(s)
    summary.merge(summary.target)
    summary.scorers = per
    return summary


def recorded_scales(items: Sequence[ItemResult]) -> dict[str, float] | None:
    """The scorers' scales as the items' results recorded them (1 where not listed), or
    None when no item recorded any (a file written before scales were kept)."""
    found: dict[str, float] | None = None
    for item in items:
        if item.scales is not None:
            found = found or {}
            for sid in item.scorer_results:
                found.setdefault(sid, item.scales.get(sid, 1.0))
    return found
