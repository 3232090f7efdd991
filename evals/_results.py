"""What a run leaves behind: item and run results, and the JSONL results file.

The results file is append-only, one JSON line per finished item, flushed; `resume`
keeps what an earlier run finished (see `ResultsFile` and `reusable`).
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError

from scorers import Chunk, ConfigError, JudgeCall, Scorer, ScoreResult

from ._data import EvalItem
from ._report import (
    RunComparison,
    RunSummary,
    ScorerDelta,
    ScorerSummary,
    format_table,
    mean_ci,
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
        phase: ``"target"``, ``"score"`` or ``"timeout"``.
        message: The error, with its type.
        scorer_id: The failing scorer, for ``phase == "score"``.
    """

    phase: Literal["target", "score", "timeout"]
    message: str
    scorer_id: str | None = None


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
    """

    item: EvalItem
    target_result: TargetResult | None = None
    scorer_results: dict[str, ScoreResult] = Field(default_factory=dict)
    error: ItemError | None = None
    duration_s: float = 0.0
    target_calls: list[JudgeCall] = Field(default_factory=list)
    other_calls: list[JudgeCall] = Field(default_factory=list)


class EvalResult(BaseModel):
    """The outcome of `run_evals`.

    Attributes:
        scores: Mean score per scorer over scored items (None when none were scored).
        summary: Means, 95% confidence intervals, counts, calls, tokens, cost, wall time.
        items: Every item's result, in data set order.
        thresholds: The thresholds asked for.
        passed: Whether every threshold was met (None without thresholds).
        failed_thresholds: Scorer ids whose mean fell below their threshold.
        results_path: Where item lines were written, if anywhere.
    """

    scores: dict[str, float | None]
    summary: RunSummary
    items: list[ItemResult]
    thresholds: dict[str, float] = Field(default_factory=dict)
    passed: bool | None = None
    failed_thresholds: list[str] = Field(default_factory=list)
    results_path: str | None = None

    def table(self) -> str:
        """The per-scorer summary table (what the CLI prints)."""
        return format_table(self.summary, self.thresholds, self.failed_thresholds)


def _read_results(path: Path) -> tuple[dict[str, ItemResult], int]:
    """The items of a results file (the last line per id wins) and the byte offset where
    its complete lines end; a last line cut short by a crash is left out."""
    data = path.read_bytes()
    found: dict[str, ItemResult] = {}
    good_end = position = 0
    for raw in data.splitlines(keepends=True):
        position += len(raw)
        if not raw.strip():
            good_end = position
            continue
        try:
            result = ItemResult.model_validate_json(raw)
        except ValidationError:
            if position == len(data):
                break
            print(f"scorekit: skipping an unreadable line in {path}", file=sys.stderr)
            good_end = position
            continue
        if not raw.endswith(b"\n"):
            break  # complete JSON but no newline: rewrite it to be safe
        good_end = position
        found[result.item.id] = result
    return found, good_end


def read_results(path: str | os.PathLike[str]) -> list[ItemResult]:
    """The `ItemResult`s of a results file written by `run_evals` (``results_path``).

    Raises:
        ConfigError: If the file does not exist.
    """
    file = Path(path)
    if not file.exists():
        raise ConfigError(f"results file {file} does not exist")
    return list(_read_results(file)[0].values())


def compare_runs(
    baseline: EvalResult | str | os.PathLike[str], candidate: EvalResult | str | os.PathLike[str]
) -> RunComparison:
    """Compare two runs item by item: per scorer, the mean change over the items both
    runs scored, with a 95% paired confidence interval and counts of items up and down.

    Args:
        baseline: An `EvalResult` or a results file.
        candidate: The same, for the new run.
    """

    def items(run: EvalResult | str | os.PathLike[str]) -> list[ItemResult]:
        return run.items if isinstance(run, EvalResult) else read_results(run)

    return compare_items(items(baseline), items(candidate))


def reusable(
    previous: ItemResult | None, item: EvalItem, scorers: Mapping[str, Scorer]
) -> ItemResult | None:
    """A finished item's earlier result, if resuming may keep it: it did not fail, the item
    is unchanged (same id is not enough: an edited ground truth must be judged again) and
    every scorer of this run has a result. Results of scorers no longer in the run are
    left out."""
    if previous is None or previous.error is not None:
        return None
    if not set(scorers) <= set(previous.scorer_results):
        return None
    if previous.item.model_dump(mode="json") != item.model_dump(mode="json"):
        return None
    if set(previous.scorer_results) == set(scorers):
        return previous
    kept = {sid: previous.scorer_results[sid] for sid in scorers}
    return previous.model_copy(update={"scorer_results": kept})


class ResultsFile:
    """The append-only JSONL file of finished items."""

    def __init__(self, path: Path, resume: bool):
        self.path = path
        self.previous: dict[str, ItemResult] = {}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.path.exists() and not resume:
            if self.path.stat().st_size:
                raise ConfigError(
                    f"results file {self.path} already exists; pass resume=True (CLI: --resume) "
                    "to continue it, or choose another path"
                )
        if resume and self.path.exists():
            self._load()
        self.handle = self.path.open("a", encoding="utf-8")

    def _load(self) -> None:
        self.previous, good_end = _read_results(self.path)
        if good_end < self.path.stat().st_size:  # drop a line cut short by a crash
            with self.path.open("r+b") as handle:
                handle.truncate(good_end)

    def write(self, result: ItemResult) -> None:
        self.handle.write(result.model_dump_json() + "\n")
        self.handle.flush()

    def close(self) -> None:
        self.handle.close()


def summarize(
    items: Sequence[ItemResult],
    scorer_ids: Sequence[str],
    wall_time_s: float,
    resumed: Collection[str] = (),
    scales: Mapping[str, float] | None = None,
) -> RunSummary:
    """Build the `RunSummary` of finished items.

    Scores and counts cover every item; model calls, tokens and cost only the items run
    in this invocation (not those in ``resumed``, taken from an earlier results file).
    A scorer's confidence interval is cut to ``[0, scale]`` when ``scales`` has it.
    """
    summary = RunSummary(items=len(items), wall_time_s=wall_time_s, resumed_items=len(resumed))
    scores: dict[str, list[float]] = {sid: [] for sid in scorer_ids}
    per: dict[str, ScorerSummary] = {sid: ScorerSummary() for sid in scorer_ids}
    for item in items:
        if item.error is not None:
            summary.item_errors += 1
        fresh = item.item.id not in resumed
        for call in item.target_calls if fresh else ():
            summary.target.add(call)
        for call in item.other_calls if fresh else ():
            summary.add(call)
        for sid, result in item.scorer_results.items():
            s = per.setdefault(sid, ScorerSummary())
            if result.status == "scored":
                s.n_scored += 1
                scores.setdefault(sid, []).append(result.score)
            elif result.status == "skipped":
                s.n_skipped += 1
            else:
                s.n_error += 1
            for call in result.judge_calls if fresh else ():
                s.add(call)
    for sid, s in per.items():
        scale = (scales or {}).get(sid)
        bounds = None if scale is None else (0.0, scale)
        s.mean, s.ci_low, s.ci_high = mean_ci(scores.get(sid, []), bounds)
        summary.merge(s)
    summary.merge(summary.target)
    summary.scorers = per
    return summary


def compare_items(baseline: Sequence[ItemResult], candidate: Sequence[ItemResult]) -> RunComparison:
    """Pair two runs' items by id and compare each scorer over the items both scored."""
    base = {r.item.id: r for r in baseline}
    cand = {r.item.id: r for r in candidate}
    comparison = RunComparison(
        only_in_baseline=[i for i in base if i not in cand],
        only_in_candidate=[i for i in cand if i not in base],
    )
    scorer_ids = [
        sid
        for sid in dict.fromkeys(s for r in baseline for s in r.scorer_results)
        if any(sid in r.scorer_results for r in candidate)
    ]
    for sid in scorer_ids:
        pairs = []
        for item_id, b in base.items():
            c = cand.get(item_id)
            rb, rc = b.scorer_results.get(sid), c.scorer_results.get(sid) if c else None
            if rb is not None and rc is not None and rb.status == rc.status == "scored":
                pairs.append((rb.score, rc.score))
        delta = ScorerDelta(n_paired=len(pairs))
        if pairs:
            delta.baseline_mean = math.fsum(b for b, _ in pairs) / len(pairs)
            delta.candidate_mean = math.fsum(c for _, c in pairs) / len(pairs)
            delta.delta, delta.ci_low, delta.ci_high = mean_ci([c - b for b, c in pairs])
            delta.improved = sum(c > b for b, c in pairs)
            delta.worsened = sum(c < b for b, c in pairs)
        comparison.scorers[sid] = delta
    return comparison
