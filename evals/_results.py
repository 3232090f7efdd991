"""What a run leaves behind: item and run results, and the JSONL results file.

The results file itself is `_jsonl`; what resuming keeps is `_resume`.
"""

from __future__ import annotations

import math
import os
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from itertools import chain
from operator import attrgetter, methodcaller
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from scorers import Chunk, ConfigError, JudgeCall, ScoreResult

from ._data import EvalItem
from ._report import (
    RunComparison,
    RunSummary,
    ScorerDelta,
    ScorerSummary,
    format_table,
    mean_ci,
    two_level_ci,
)


class TargetResult(BaseModel):
    """The target's part of an item.

    Attributes:
        output: The response (an `AgentOutput` for agents).
        context: Retrieved chunks the target returned, if any.
        duration_s: Wall time of the target call.
    """

    output: Any = None
    context: list[Chunk] | None = None
    duration_s: float = 0.0


class ItemError(BaseModel):
    """Why an item failed.

    Attributes:
        phase: ``"target"``, ``"score"``, ``"timeout"``, or ``"write"`` when the item's
            results could not be stored as JSON.
        message: The error, with its type.
        scorer_id: The failing scorer, for ``phase == "score"``.
    """

    phase: Literal["target", "score", "timeout", "write"]
    message: str
    scorer_id: str | None = None


class ErrorRecord(BaseModel):
    """One failure of a run, for reports: an item's target, timeout or write error, or
    one scorer's error on an item.

    Attributes:
        item_id: The item.
        phase: ``"target"``, ``"score"``, ``"timeout"`` or ``"write"``.
        scorer_id: The failing scorer, for ``phase == "score"``.
        kind: The exception type (``JudgeAPIError``, ``TimeoutError``, ...).
        message: The error message.
    """

    item_id: str
    phase: str
    scorer_id: str | None = None
    kind: str
    message: str


def _kind(message: str, default: str) -> str:
    head, sep, _ = message.partition(":")
    return head if sep and head.isidentifier() else default


def run_errors(items: Sequence[ItemResult]) -> list[ErrorRecord]:
    """Every failure in ``items``: each scorer error, and each item error that happened
    outside the scorers (target, timeout, write)."""
    found = []
    for item in items:
        error = item.error
        if error is not None and error.phase != "score":
            default = "TimeoutError" if error.phase == "timeout" else "Error"
            found.append(
                ErrorRecord(
                    item_id=item.item.id,
                    phase=error.phase,
                    kind=_kind(error.message, default),
                    message=error.message,
                )
            )
        for sid, result in item.scorer_results.items():
            if result.status == "error":
                message = result.error or ""
                found.append(
                    ErrorRecord(
                        item_id=item.item.id,
                        phase="score",
                        scorer_id=sid,
                        kind=_kind(message, "Error"),
                        message=message,
                    )
                )
    return found


class ItemResult(BaseModel):
    """One finished item; also one line of the results file.

    Attributes:
        item: The labelled item.
        target_result: What the target returned (None without a target).
        scorer_results: Each scorer's result, keyed by scorer id.
        error: The first failure, or None.
        duration_s: Wall time of the item.
        target_calls: Model calls made by the target (an `Agent`, or any target that
            calls a `scorers.Judge`), failed ones included.
        other_calls: Model calls of this item in no scorer result: those cut off when the
            item timed out.
        fingerprints: Each scorer's `Scorer.fingerprint` when it scored this item;
            resume re-scores a scorer whose fingerprint changed since.
    """

    item: EvalItem
    target_result: TargetResult | None = None
    scorer_results: dict[str, ScoreResult] = Field(default_factory=dict)
    error: ItemError | None = None
    duration_s: float = 0.0
    target_calls: list[JudgeCall] = Field(default_factory=list)
    other_calls: list[JudgeCall] = Field(default_factory=list)
    fingerprints: dict[str, str] = Field(default_factory=dict)


class EvalResult(BaseModel):
    """The outcome of `run_evals`.

    Attributes:
        scores: Mean score per scorer over scored items (None when none were scored).
        summary: Means, 95% confidence intervals, counts, calls, tokens, cost, wall time.
        items: Every item's result, in data set order.
        thresholds: The thresholds asked for.
        min_scored: The share of items each thresholded scorer had to score, if asked.
        passed: Whether every threshold was met (None without thresholds).
        failed_thresholds: Scorer ids whose mean fell below their threshold.
        results_path: Where item lines were written, if anywhere.
    """

    scores: dict[str, float | None]
    summary: RunSummary
    items: list[ItemResult]
    thresholds: dict[str, float] = Field(default_factory=dict)
    min_scored: float | None = None
    passed: bool | None = None
    failed_thresholds: list[str] = Field(default_factory=list)
    results_path: str | None = None

    def __repr__(self) -> str:
        scores = {sid: None if v is None else round(v, 4) for sid, v in self.scores.items()}
        where = f", results_path={self.results_path!r}" if self.results_path else ""
        return (
            f"EvalResult(items={self.summary.items}, errors={self.summary.item_errors}, "
            f"scores={scores}, passed={self.passed}{where})"
        )

    def _repr_html_(self) -> str:
        from ._views import summary_html

        return summary_html(self.summary)

    def to_pandas(self) -> Any:
        """A pandas DataFrame, one row per item × scorer: ``id``, ``scorer``, ``score``
        (None unless scored), ``status``, ``reason``, ``error`` and the item's fields
        (``input``, ``ground_truth``, ``output``, ``context`` as texts,
        ``reference_contexts``, ``reference_context_ids``, ``metadata``). A scorer that
        could not run because its item failed first has status ``"error"`` and the
        item's error. pandas is an optional extra: ``pip install 'scorekit[pandas]'``.

        Raises:
            ConfigError: When pandas is not installed.
        """
        from ._views import to_pandas

        return to_pandas(self.items, list(self.summary.scorers))

    def to_html(
        self,
        path: str | os.PathLike[str],
        *,
        baseline: EvalResult | str | os.PathLike[str] | None = None,
        prompts: bool = True,
        title: str = "scorekit report",
    ) -> Path:
        """Write the run as one self-contained HTML page (see ``scorekit report``).

        Args:
            path: The ``.html`` file to write.
            baseline: Another run (an `EvalResult` or a results file) to compare with.
            prompts: Keep each judge call's prompt and raw response (collapsed).
            title: The page title.

        Returns:
            The path written.
        """
        from ._html import render_report, write_report

        base = None
        if baseline is not None:
            base = baseline.items if isinstance(baseline, EvalResult) else read_results(baseline)
        page = render_report(
            self.items, summary=self.summary, baseline=base, prompts=prompts, title=title
        )
        return write_report(path, page)

    def errors(self) -> list[ErrorRecord]:
        """Every failure of the run (see `ErrorRecord`), in item order."""
        return run_errors(self.items)

    def table(self) -> str:
        """The per-scorer summary table (what the CLI prints)."""
        return format_table(self.summary, self.thresholds, self.failed_thresholds, self.min_scored)


def read_results(path: str | os.PathLike[str]) -> list[ItemResult]:
    """The `ItemResult`s of a results file written by `run_evals` (``results_path``), as a
    list with a ``to_pandas()`` method (see `EvalResult.to_pandas`).

    Raises:
        ConfigError: If the file does not exist or holds no result line (a data set,
            say).
    """
    from ._jsonl import read_file

    file = Path(path)
    if not file.exists():
        raise ConfigError(f"results file {file} does not exist")
    if file.is_dir():
        raise ConfigError(f"results file {file} is a directory")
    from ._views import ResultList

    return ResultList(read_file(file)[0].values())


def compare_runs(
    baseline: EvalResult | str | os.PathLike[str],
    candidate: EvalResult | str | os.PathLike[str],
    *,
    resamples: int = 10_000,
    seed: int = 0,
) -> RunComparison:
    """Compare two runs item by item: per scorer, the mean change over the items both
    runs scored, with a 95% paired confidence interval, counts of items up and down, and
    p-values of a paired t-test, a randomization test and a paired bootstrap,
    Holm–Bonferroni adjusted across the scorers (see `scorers.paired_test`).

    Args:
        baseline: An `EvalResult` or a results file.
        candidate: The same, for the new run.
        resamples: Resamples of the randomization test and of the bootstrap.
        seed: Their random seed (the p-values are reproducible).

    Raises:
        ConfigError: If a path is not a results file, or the runs share no scorer.
    """

    def items(run: EvalResult | str | os.PathLike[str]) -> list[ItemResult]:
        return run.items if isinstance(run, EvalResult) else read_results(run)

    base, cand = items(baseline), items(candidate)
    comparison = compare_items(base, cand, resamples=resamples, seed=seed)
    if not comparison.scorers:

        def ids(run: Sequence[ItemResult]) -> list[str]:
            return sorted({sid for r in run for sid in r.scorer_results})

        raise ConfigError(
            f"the runs have no scorer in common (baseline: {ids(base) or 'none'}; "
            f"candidate: {ids(cand) or 'none'}); compare runs of the same scorers"
        )
    return comparison


_STATUS, _SCORE, _DETAILS = attrgetter("status"), attrgetter("score"), attrgetter("details")
_RESULTS, _CALLS = attrgetter("scorer_results"), attrgetter("judge_calls")
_SAMPLING = methodcaller("get", "sampling")


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
        per[sid] = s = ScorerSummary()  # a scorer of results only: kept from an earlier run
        column = [table[sid] for table in tables if sid in table]
        if any(map(_CALLS, column)):
            for item in items:
                result = item.scorer_results.get(sid)
                if result is not None and result.judge_calls and sid not in old(item.item.id):
                    for call in result.judge_calls:
                        s.add(call)
        counts = Counter(map(_STATUS, column))  # plain counters: a model's setattr costs more
        s.n_scored, s.n_skipped = counts["scored"], counts["skipped"]
        s.n_error = counts["error"] + unrun[sid]
        scored = (
            column if s.n_scored == len(column) else [r for r in column if r.status == "scored"]
        )
        scale = (scales or {}).get(sid)
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
        summary.merge(s)
    summary.merge(summary.target)
    summary.scorers = per
    return summary


def compare_items(
    baseline: Sequence[ItemResult],
    candidate: Sequence[ItemResult],
    *,
    resamples: int = 10_000,
    seed: int = 0,
) -> RunComparison:
    """Pair two runs' items by id and compare each scorer over the items both scored."""
    from scorers import holm, paired_test

    base = {r.item.id: r for r in baseline}
    cand = {r.item.id: r for r in candidate}
    comparison = RunComparison(
        only_in_baseline=[i for i in base if i not in cand],
        only_in_candidate=[i for i in cand if i not in base],
        resamples=resamples,
        seed=seed,
    )
    scorer_ids = [
        sid
        for sid in dict.fromkeys(s for r in baseline for s in r.scorer_results)
        if any(sid in r.scorer_results for r in candidate)
    ]
    tests = []
    for sid in scorer_ids:
        pairs = []
        for item_id in sorted(base):  # one order for files and results: same p-values
            b, c = base[item_id], cand.get(item_id)
            rb, rc = b.scorer_results.get(sid), c.scorer_results.get(sid) if c else None
            if rb is not None and rc is not None and rb.status == rc.status == "scored":
                pairs.append((rb.score, rc.score))
        test = paired_test(
            [b for b, _ in pairs], [c for _, c in pairs], resamples=resamples, seed=seed
        )
        tests.append(test)
        delta = ScorerDelta(n_paired=len(pairs))
        if pairs:
            delta.baseline_mean = math.fsum(b for b, _ in pairs) / len(pairs)
            delta.candidate_mean = math.fsum(c for _, c in pairs) / len(pairs)
            delta.delta, delta.ci_low, delta.ci_high = mean_ci([c - b for b, c in pairs])
            delta.improved = sum(c > b for b, c in pairs)
            delta.worsened = sum(c < b for b, c in pairs)
        comparison.scorers[sid] = delta
    for name in ("p_t", "p_permutation", "p_bootstrap"):  # Holm over the scorers
        values = [getattr(test, name) for test in tests]
        for delta, value, adjusted in zip(
            comparison.scorers.values(), values, holm(values), strict=True
        ):
            setattr(delta, name, value)
            setattr(delta, f"{name}_holm", adjusted)
    return comparison
