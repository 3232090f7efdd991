"""Agreement on graded labels (relevance levels, qrels grades): exact agreement and
Cohen's κ with quadratic weights, each with a 95% percentile bootstrap interval.

Quadratic weights are the usual choice for ordinal labels: a disagreement of one level
costs a ninth of one of three levels (on four levels), so "high" against "medium" is
nearly agreement and "high" against "none" is not. κ_w = 1 − Σ w·O / Σ w·E, with
w_ij = (i − j)² / (k − 1)², O the observed proportions and E the product of their
margins (statsmodels' ``cohens_kappa(table, wt="quadratic")``, sklearn's
``cohen_kappa_score(weights="quadratic")``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from scorers import DatasetError, Scorer, ScorerRun, bootstrap, bootstrap_interval

from ._calibration import Calibration, Disagreement, agreement

LEVELS = ("none", "low", "medium", "high")
"""Relevance levels as grades 0-3 (context relevance's; qrels grades are the same)."""


def grade_of(level: str | int) -> int:
    """A level's grade (``"high"`` → 3), or a grade 0-3 as it is.

    Raises:
        ValueError: For anything else.
    """
    if isinstance(level, str) and level in LEVELS:
        return LEVELS.index(level)
    if isinstance(level, int) and not isinstance(level, bool) and 0 <= level < len(LEVELS):
        return level
    raise ValueError(f"a graded label is one of {list(LEVELS)} or 0-3; got {level!r}")


def _graded_arrays(labels: np.ndarray, predicted: np.ndarray, k: int) -> dict[str, np.ndarray]:
    """Exact agreement and quadratic-weighted κ over the last axis (NaN where κ is
    undefined: every label and prediction at one level)."""
    n = labels.shape[-1]
    grades = np.arange(k)
    weights = (grades[:, None] - grades[None, :]) ** 2 / (k - 1) ** 2
    observed = np.zeros((*labels.shape[:-1], k, k))
    for i in range(k):
        for j in range(k):
            observed[..., i, j] = np.sum((labels == i) & (predicted == j), axis=-1)
    observed /= n
    expected = observed.sum(axis=-1)[..., :, None] * observed.sum(axis=-2)[..., None, :]
    disagreement = np.sum(weights * expected, axis=(-2, -1))
    with np.errstate(divide="ignore", invalid="ignore"):
        kappa = np.where(
            disagreement > 0,
            1 - np.sum(weights * observed, axis=(-2, -1)) / disagreement,
            np.nan,
        )
    return {"accuracy": np.mean(labels == predicted, axis=-1), "weighted_kappa": kappa}


def graded_agreement(
    labels: Sequence[int],
    predicted: Sequence[int],
    *,
    levels: int = len(LEVELS),
    resamples: int = 2000,
    seed: int = 0,
) -> tuple[dict[str, float | None], dict[str, list[float | None]]]:
    """Exact agreement and quadratic-weighted κ of two graded label lists (grades
    0..levels-1), each with its 95% percentile bootstrap interval (pairs resampled).

    Returns:
        The metrics (None where undefined) and their intervals.
    """
    y = np.asarray(labels, dtype=np.int64)
    p = np.asarray(predicted, dtype=np.int64)
    metrics: dict[str, float | None] = {"accuracy": None, "weighted_kappa": None}
    ci: dict[str, list[float | None]] = {name: [None, None] for name in metrics}
    if not len(y):
        return metrics, ci
    for name, value in _graded_arrays(y, p, levels).items():
        metrics[name] = None if np.isnan(value) else float(value)
    if resamples:
        samples = bootstrap(lambda a, b: _graded_arrays(a, b, levels), y, p,
                            resamples=resamples, seed=seed)  # fmt: skip
        for name, values in samples.items():
            interval = bootstrap_interval(values)
            if interval is not None:
                ci[name] = list(interval)
    return metrics, ci


async def graded_calibration(
    scorer: Scorer, rows: list[dict[str, Any]], resamples: int, seed: int, concurrency: int
) -> Calibration:
    """`evals.calibrate` of context relevance: rows ``{"input", "chunk", "label": level}``
    (``high`` / ``medium`` / ``low`` / ``none``, or 0-3), each chunk judged on its own
    against its question (no response: the relevance question alone). Exact agreement and
    quadratic-weighted κ on the levels; precision, recall, F1, κ and the confusion matrix
    of "relevant" (high or medium)."""
    cases = []
    for number, row in enumerate(rows, start=1):
        if "chunk" not in row or not str(row.get("input") or "").strip():
            raise DatasetError(f"row {number}: a relevance row is {{'input', 'chunk', 'label'}}")
        try:
            label = grade_of(row.get("label"))  # type: ignore[arg-type]
        except ValueError as exc:
            raise DatasetError(f"row {number}: {exc}") from None
        chunk = row["chunk"]
        text = chunk if isinstance(chunk, str) else str(chunk.get("text"))
        cases.append((ScorerRun(input=row["input"], context=[chunk]), label, text))
    results = await scorer.arun_many([run for run, _, _ in cases], concurrency=concurrency)
    predicted: list[int | None] = []
    reasons = []
    for result in results:
        listed = (result.details.get("verdicts") or {}).get("verdicts") or []
        level = listed[0].get("relevance") if result.value is not None and listed else None
        predicted.append(None if level is None else LEVELS.index(level))
        reasons.append(str(listed[0].get("reason", "")) if listed else result.error or "")
    kept = [i for i, p in enumerate(predicted) if p is not None]
    labels = [cases[i][1] for i in kept]
    judged = [int(predicted[i] or 0) for i in kept]
    metrics, ci, confusion = agreement(
        [g >= 2 for g in labels], [g >= 2 for g in judged], resamples=resamples, seed=seed
    )
    graded, intervals = graded_agreement(labels, judged, resamples=resamples, seed=seed)
    metrics.update(graded)
    ci.update(intervals)
    disagreements = [
        Disagreement(
            row=i + 1, label=cases[i][1] >= 2, predicted=int(predicted[i] or 0) >= 2,
            text=cases[i][2], reason=reasons[i], label_level=LEVELS[cases[i][1]],
            predicted_level=LEVELS[int(predicted[i] or 0)],
        )
        for i in kept
        if predicted[i] != cases[i][1]
    ]  # fmt: skip
    return Calibration(
        scorer_id=scorer.id,
        model=getattr(scorer.judge, "model", None),
        n=len(kept),
        metrics=metrics,
        ci=ci,
        confusion=confusion,
        failed=len(cases) - len(kept),
        disagreements=disagreements,
        resamples=resamples,
        seed=seed,
    )
