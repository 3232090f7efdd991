"""What `calibrate` returns, and agreement of two yes/no label lists (accuracy, precision,
recall, F1, Cohen's κ, each with a bootstrap 95% interval): shared by calibration, the
judge's agreement with people, and graded calibration."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from pydantic import BaseModel, Field

from scorers import bootstrap, bootstrap_interval
from scorers._internal import write_atomically


class Disagreement(BaseModel):
    """A row where the judge and the label differ.

    Attributes:
        row: The row's position in the data (1-based).
        label: The human label (as a bool: positive or not; relevant for a level).
        predicted: The judge's verdict.
        text: The claim (or chunk) judged.
        reason: The judge's reason.
        label_level: The person's relevance level (graded rows).
        predicted_level: The judge's relevance level (graded rows).
    """

    row: int
    label: bool
    predicted: bool | None
    text: str
    reason: str = ""
    label_level: str | None = None
    predicted_level: str | None = None


class Calibration(BaseModel):
    """What `calibrate` returns.

    Attributes:
        scorer_id: The scorer whose verdicts were compared.
        model: The judge's model.
        n: Rows compared (rows whose scoring failed are left out and counted in ``failed``).
        metrics: ``accuracy``, ``precision``, ``recall``, ``f1`` (of the positive class)
            and ``kappa`` (Cohen's κ); for relevance levels also ``weighted_kappa``
            (quadratic weights) and ``accuracy`` is exact agreement on the level, the
            others of "relevant" (high or medium).
        ci: Per metric, the bootstrap 95% interval ``[low, high]``.
        confusion: ``{"tp", "fp", "fn", "tn"}``.
        failed: Rows whose scoring failed.
        disagreements: Rows where the verdict and the label differ.
        resamples: Bootstrap resamples; ``seed`` their random seed.
    """

    scorer_id: str
    model: str | None = None
    n: int
    metrics: dict[str, float | None]
    ci: dict[str, list[float | None]]
    confusion: dict[str, int]
    failed: int = 0
    disagreements: list[Disagreement] = Field(default_factory=list)
    resamples: int
    seed: int

    def table(self) -> str:
        """The metrics with their intervals."""
        return calibration_table([self])

    def write_disagreements(self, path: str | os.PathLike[str]) -> Path:
        """The disagreeing rows as JSON lines, for reading (written all at once; missing
        folders are created).

        Raises:
            ConfigError: When ``path`` cannot be written, or is a file that
                ``write_disagreements`` did not write (never replaced).
        """
        lines = "".join(d.model_dump_json() + "\n" for d in self.disagreements)
        return write_atomically(
            Path(path), lines.encode("utf-8"), _disagreements, "disagreements file"
        )


def _disagreements(start: bytes) -> bool:
    """Whether a file starts with a `Disagreement` line (one ``write_disagreements`` wrote)."""
    try:
        Disagreement.model_validate_json(start.split(b"\n", 1)[0], strict=True)
    except ValueError:
        return False
    return True


def _metric_arrays(labels: np.ndarray, predicted: np.ndarray) -> dict[str, np.ndarray]:
    """The agreement metrics over the last axis (one per resample of a bootstrap block;
    NaN where a metric is undefined, e.g. precision with nothing predicted)."""
    tp = np.sum(labels & predicted, axis=-1).astype(np.float64)
    fp = np.sum(~labels & predicted, axis=-1).astype(np.float64)
    fn = np.sum(labels & ~predicted, axis=-1).astype(np.float64)
    tn = np.sum(~labels & ~predicted, axis=-1).astype(np.float64)
    n = tp + fp + fn + tn
    with np.errstate(divide="ignore", invalid="ignore"):
        accuracy = np.where(n > 0, (tp + tn) / n, np.nan)
        expected = np.where(
            n > 0, ((tp + fp) * (tp + fn) + (fn + tn) * (fp + tn)) / (n * n), np.nan
        )
        return {
            "accuracy": accuracy,
            "precision": np.where(tp + fp > 0, tp / (tp + fp), np.nan),
            "recall": np.where(tp + fn > 0, tp / (tp + fn), np.nan),
            "f1": np.where(2 * tp + fp + fn > 0, 2 * tp / (2 * tp + fp + fn), np.nan),
            "kappa": np.where(expected < 1, (accuracy - expected) / (1 - expected), np.nan),
        }


def agreement(
    labels: Sequence[bool], predicted: Sequence[bool], *, resamples: int = 2000, seed: int = 0
) -> tuple[dict[str, float | None], dict[str, list[float | None]], dict[str, int]]:
    """Metrics, bootstrap 95% intervals (`scorers.bootstrap`: labelled rows resampled)
    and the confusion matrix of two label lists."""
    y = np.asarray(labels, dtype=bool)
    p = np.asarray(predicted, dtype=bool)
    metrics = {
        name: None if np.isnan(value) else float(value)
        for name, value in _metric_arrays(y, p).items()
    }
    ci: dict[str, list[float | None]] = {name: [None, None] for name in metrics}
    if len(y) and resamples:
        samples = bootstrap(_metric_arrays, y, p, resamples=resamples, seed=seed)
        for name, values in samples.items():
            interval = bootstrap_interval(values)
            if interval is not None:
                ci[name] = list(interval)
    confusion = {
        "tp": int(np.sum(y & p)),
        "fp": int(np.sum(~y & p)),
        "fn": int(np.sum(y & ~p)),
        "tn": int(np.sum(~y & ~p)),
    }
    return metrics, ci, confusion


def calibration_table(calibrations: Sequence[Calibration]) -> str:
    """Metrics with 95% intervals, one column per calibration (scorers or judges side by
    side)."""

    def cell(cal: Calibration, name: str) -> str:
        value, (low, high) = cal.metrics.get(name), cal.ci.get(name, [None, None])
        if value is None:
            return "-"
        interval = "" if low is None else f" [{low:.3f}, {high:.3f}]"
        return f"{value:.3f}{interval}"

    headers = [f"{c.scorer_id} ({c.model})" if c.model else c.scorer_id for c in calibrations]
    col = max([24, *(len(h) for h in headers)])
    names = ["accuracy", "precision", "recall", "f1", "kappa"]
    names += ["weighted_kappa"] if any("weighted_kappa" in c.metrics for c in calibrations) else []
    width = max(len(name) for name in ["metric", *names])
    lines = [f"{'metric':<{width}}  " + "  ".join(f"{h:<{col}}" for h in headers)]
    lines.append(f"{'n':<{width}}  " + "  ".join(f"{c.n:<{col}}" for c in calibrations))
    for name in names:
        lines.append(
            f"{name:<{width}}  " + "  ".join(f"{cell(c, name):<{col}}" for c in calibrations)
        )
    for c, header in zip(calibrations, headers, strict=True):
        m = c.confusion
        lines.append(
            f"{header}: confusion tp {m['tp']} fp {m['fp']} fn {m['fn']} tn {m['tn']}; "
            f"{len(c.disagreements)} disagreements; {c.failed} failed; bootstrap "
            f"{c.resamples:,} resamples, seed {c.seed}"
        )
    return "\n".join(lines)
