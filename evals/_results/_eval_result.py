"""`EvalResult`, what `run_evals` returns; results files read back; runs compared."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import overload

from pydantic import BaseModel, Field

from scorers import ConfigError

from .._compare._comparison import RunComparison, compare_items
from .._compare._many_runs import RunsComparison, compare_many
from .._file._header import RunHeader, differences
from .._file._items import ItemResult
from .._stats._summaries import RunSummary
from ._run_view import ResultList, RunView, read_results


class EvalResult(BaseModel, RunView):
    """The outcome of `run_evals`; `read_results` reads the same run back from its
    results file with the same reading API (`RunView`).

    Attributes:
        scores: Mean score per scorer over scored items (None when none were scored).
        summary: Means, 95% confidence intervals, counts, calls, tokens, cost, wall time.
        items: Every item's result, in data set order (empty when the run kept none:
            ``run_evals(keep_items=False)``; `iter_items` reads them back).
        thresholds: The thresholds asked for.
        min_scored: The share of items each thresholded scorer had to score, if asked.
        passed: Whether every threshold was met (None without thresholds).
        failed_thresholds: Scorer ids whose mean fell below their threshold.
        results_path: Where item lines were written, if anywhere.
        header: The run's scorer definitions and thresholds (what the results file's
            header line records).
        items_kept: Whether ``items`` holds the items (False after
            ``run_evals(keep_items=False)``).
    """

    scores: dict[str, float | None]
    summary: RunSummary
    items: list[ItemResult]
    thresholds: dict[str, float] = Field(default_factory=dict)
    min_scored: float | None = None
    passed: bool | None = None
    failed_thresholds: list[str] = Field(default_factory=list)
    results_path: str | None = None
    header: RunHeader | None = None
    items_kept: bool = True

    def iter_items(self) -> Iterator[ItemResult]:
        """Every item's result, one at a time: ``items``, or for a run that kept none
        (``keep_items=False``), the lines of ``results_path`` read back as a stream (the
        last line per id, in the file's order)."""
        if self.items_kept or self.results_path is None:
            yield from self.items
            return
        from .._file._previous import PreviousItems

        yield from PreviousItems(Path(self.results_path)).in_file_order()

    def _all_items(self) -> list[ItemResult]:
        return self.items if self.items_kept else list(self.iter_items())

    def __repr__(self) -> str:
        scores = {sid: None if v is None else round(v, 4) for sid, v in self.scores.items()}
        where = f", results_path={self.results_path!r}" if self.results_path else ""
        return (
            f"EvalResult(items={self.summary.items}, errors={self.summary.item_errors}, "
            f"scores={scores}, passed={self.passed}{where})"
        )


Run = EvalResult | str | os.PathLike[str]


@overload
def compare_runs(
    baseline: Run, candidate: Run, *, resamples: int = ..., seed: int = ...
) -> RunComparison: ...


@overload
def compare_runs(
    baseline: Run,
    candidate: Run,
    *candidates: Run,
    resamples: int = ...,
    seed: int = ...,
    names: Sequence[str] | None = ...,
) -> RunComparison | RunsComparison: ...


def compare_runs(
    baseline: Run,
    candidate: Run,
    *candidates: Run,
    resamples: int = 10_000,
    seed: int = 0,
    names: Sequence[str] | None = None,
) -> RunComparison | RunsComparison:
    """Compare two runs item by item: per scorer, the mean change over the items both
    runs scored, with a 95% paired confidence interval, counts of items up and down, and
    p-values of a paired t-test, a randomization test and a paired bootstrap,
    Holm–Bonferroni adjusted across the scorers (see `scorers.paired_test`).

    With more candidates, a `RunsComparison`: per scorer, each run's mean and interval
    and its paired difference from the baseline, the p-values Holm-adjusted across every
    candidate and scorer (``RunsComparison.table()``; ranx's comparison tables).

    Args:
        baseline: An `EvalResult` or a results file.
        candidate: The same, for the new run.
        *candidates: More runs to compare with the baseline.
        resamples: Resamples of the randomization test and of the bootstrap.
        seed: Their random seed (the p-values are reproducible).
        names: The runs' names in a `RunsComparison`, baseline first (default: the
            files' names without ``.jsonl``, ``run 1``, ``run 2``... for `EvalResult`s).

    A shared scorer defined differently in the two runs (another scale, other options,
    other prompt versions) makes its scores incomparable: the comparison is refused. A
    different judge is allowed and listed in the comparison's ``warnings``.

    Raises:
        ConfigError: If a path is not a results file, the runs share no scorer, or a
            shared scorer is defined differently in the two.
    """

    def items(run: EvalResult | str | os.PathLike[str]) -> list[ItemResult]:
        return run._all_items() if isinstance(run, EvalResult) else read_results(run)

    if candidates:
        return _compare_many([baseline, candidate, *candidates], names, resamples, seed)
    base, cand = items(baseline), items(candidate)
    comparison = compare_items(base, cand, resamples=resamples, seed=seed)
    errors, comparison.warnings = differences(
        _header(baseline, base), _header(candidate, cand), list(comparison.scorers)
    )
    if errors:
        raise ConfigError(
            "the runs score with differently defined scorers, so their scores cannot be "
            f"compared: {'; '.join(errors)}. Compare runs of one scorer definition"
        )
    if not comparison.scorers:

        def ids(run: Sequence[ItemResult]) -> list[str]:
            return sorted({sid for r in run for sid in r.scorer_results})

        raise ConfigError(
            f"the runs have no scorer in common (baseline: {ids(base) or 'none'}; "
            f"candidate: {ids(cand) or 'none'}); compare runs of the same scorers"
        )
    if isinstance(candidate, EvalResult):
        comparison.candidate_gates = candidate.gates()
    elif isinstance(cand, ResultList):
        comparison.candidate_gates = cand.gates()
    return comparison


def _compare_many(
    runs: Sequence[Run], names: Sequence[str] | None, resamples: int, seed: int
) -> RunsComparison:
    if names is not None and len(names) != len(runs):
        raise ConfigError(f"names has {len(names)} entries for {len(runs)} runs")
    labels = list(names) if names is not None else _run_names(runs)
    loaded = [r._all_items() if isinstance(r, EvalResult) else read_results(r) for r in runs]
    shared = set(_ids(loaded[0])).intersection(*(_ids(items) for items in loaded[1:]))
    if not shared:
        raise ConfigError("the runs have no scorer in common; compare runs of the same scorers")
    for run, items, label in zip(runs[1:], loaded[1:], labels[1:], strict=True):
        errors, _ = differences(_header(runs[0], loaded[0]), _header(run, items), sorted(shared))
        if errors:
            raise ConfigError(
                f"{label} scores with differently defined scorers than {labels[0]}: "
                f"{'; '.join(errors)}. Compare runs of one scorer definition"
            )
    found = compare_many(list(zip(labels, loaded, strict=True)), resamples=resamples, seed=seed)
    for run, items, label in zip(runs[1:], loaded[1:], labels[1:], strict=True):
        if isinstance(run, EvalResult):
            found.pairs[label].candidate_gates = run.gates()
        elif isinstance(items, ResultList):
            found.pairs[label].candidate_gates = items.gates()
    return found


def _ids(items: Sequence[ItemResult]) -> list[str]:
    return list(dict.fromkeys(sid for r in items for sid in r.scorer_results))


def _run_names(runs: Sequence[Run]) -> list[str]:
    names = [
        f"run {i}" if isinstance(run, EvalResult) else Path(run).name.removesuffix(".jsonl")
        for i, run in enumerate(runs)
    ]
    if len(set(names)) < len(names):  # two files of one name in other folders
        names = [f"{name} ({i})" for i, name in enumerate(names)]
    return names


def _header(run: EvalResult | str | os.PathLike[str], items: Sequence[ItemResult]) -> RunHeader:
    """A run's header; for a file written before headers, the scales its items recorded."""
    from .._file._header import ScorerDefinition
    from .._stats._summarize import recorded_scales

    header = run.header if isinstance(run, EvalResult) else getattr(items, "header", None)
    if header is not None:
        return header
    scales = recorded_scales(items) or {}
    return RunHeader(scorers={sid: ScorerDefinition(scale=scale) for sid, scale in scales.items()})
