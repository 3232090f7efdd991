"""`calibrate`: how often the judge's verdicts agree with human labels.

Each labelled row is scored by the scorer's own verdict step — same prompt, same judge,
same cache — and the verdict is compared with the label: accuracy, precision / recall /
F1 of the positive class, Cohen's κ and the confusion matrix, each with a bootstrap 95%
interval from a fixed seed.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, Field

from scorers import ConfigError, DatasetError, Scorer, ScoreResult, ScorerRun, bootstrap
from scorers.lowlevel import integer, write_atomically

from ._files import Columns, read_rows
from ._twins import sync_twin

_CLAIM_LABELS = {"supported": True, "not_supported": False}
_CALIBRATION_COLUMNS = Columns(
    lists=("context", "evidence"),
    known=("claim", "context", "evidence", "label", "input", "ground_truth", "chunk", "response"),
)
"""The fields of calibration rows (for CSV: the context is a list)."""


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
            defined = values[~np.isnan(values)]
            if len(defined):
                low, high = np.percentile(defined, [2.5, 97.5])
                ci[name] = [float(low), float(high)]
    confusion = {
        "tp": int(np.sum(y & p)),
        "fp": int(np.sum(~y & p)),
        "fn": int(np.sum(y & ~p)),
        "tn": int(np.sum(~y & ~p)),
    }
    return metrics, ci, confusion


def calibration_rows(
    data: str | os.PathLike[str] | Iterable[Any], scorer_id: str = "context-recall"
) -> list[dict[str, Any]]:
    """The labelled rows of a calibration set: a file of any format data sets take
    (`.jsonl`, `.json`, `.csv`, `.parquet`, or one registered with `register_format`),
    dicts, or people's labels stored by `scorekit view` (a ``scorekit-labels.sqlite`` or its folder: the
    labels of ``scorer_id``'s verdicts)."""
    if isinstance(data, (str, os.PathLike)):
        path = Path(data)
        if path.is_dir() or path.suffix.lower() in (".sqlite", ".db"):
            return _stored_rows(path, scorer_id)
        rows = []
        for where, row in read_rows(path, "calibration data", _CALIBRATION_COLUMNS):
            if isinstance(row, DatasetError):
                raise row
            if not isinstance(row, dict):
                raise DatasetError(f"{where}: expected an object, got {type(row).__name__}")
            rows.append(row)
        return rows
    out = []
    for number, row in enumerate(data, start=1):
        if not isinstance(row, dict):
            raise DatasetError(f"row {number}: expected an object, got {type(row).__name__}")
        out.append(dict(row))
    return out


def _stored_rows(path: Path, scorer_id: str) -> list[dict[str, Any]]:
    from ._labels import LabelStore

    store = LabelStore(path)
    if not store.path.is_file():
        raise DatasetError(f"no labels database at {store.path}; label verdicts with scorekit view")
    rows = store.calibration_rows(scorer_id)
    if not rows:
        held = sorted({x.verdict.scorer_id for x in store.labels() if x.label is not None})
        raise DatasetError(
            f"{store.path} holds no decided labels of {scorer_id}'s verdicts"
            + (f"; it has labels of {', '.join(held)} (choose that scorer)" if held else "")
        )
    return rows


def _as_run(row: dict[str, Any], number: int, partial_as: str) -> tuple[ScorerRun, bool, str]:
    """The run that asks the scorer's verdict step about one labelled row."""
    where = f"row {number}"
    label = row.get("label")
    if "claim" in row:
        context = row.get("context", row.get("evidence"))
        if isinstance(label, str) and label == "partially_supported":
            label = partial_as
        if label not in _CLAIM_LABELS:
            raise DatasetError(
                f"{where}: label must be supported / not_supported / partially_supported; "
                f"got {label!r}"
            )
        if not isinstance(context, list) or not context:
            raise DatasetError(f"{where}: a claim row needs 'context' (or WiCE 'evidence'): a list")
        run = ScorerRun(claims=[str(row["claim"])], context=context, input=row.get("input"))
        return run, _CLAIM_LABELS[label], str(row["claim"])
    if "chunk" in row:
        if label not in (0, 1, True, False):
            raise DatasetError(f"{where}: a chunk row's label is 0 or 1; got {label!r}")
        if row.get("response"):  # context utilization judges the chunk against the response
            run = ScorerRun(input=row.get("input"), output=row["response"], context=[row["chunk"]])
        elif not row.get("ground_truth"):
            raise DatasetError(f"{where}: a chunk row needs 'ground_truth' (or 'response')")
        else:
            run = ScorerRun(
                input=row.get("input"), ground_truth=row["ground_truth"], context=[row["chunk"]]
            )
        text = row["chunk"] if isinstance(row["chunk"], str) else str(row["chunk"].get("text"))
        return run, bool(label), text
    raise DatasetError(
        f"{where}: expected a claim row {{'claim', 'context', 'label'}} or a chunk row "
        "{'input', 'ground_truth', 'chunk', 'label'}"
    )


def _prediction(result: ScoreResult, scale: float) -> tuple[bool | None, str]:
    """Whether the scorer said supported / useful (its full score), and why; None for a
    run that was not scored (a failed row is counted, not fatal)."""
    if result.value is None:
        return None, result.error or result.reason
    verdicts = (result.details.get("verdicts") or {}).get("verdicts") or []
    return result.value >= scale, " ".join(str(v.get("reason", "")) for v in verdicts)


async def acalibrate(
    scorer: Scorer,
    data: str | os.PathLike[str] | Iterable[Any],
    *,
    partial_as: Literal["supported", "not_supported"] = "not_supported",
    resamples: int = 2000,
    seed: int = 0,
    concurrency: int = 16,
) -> Calibration:
    """Measure a scorer's verdicts against human labels.

    Rows are claim rows — ``{"claim", "context": [...], "label"}`` with labels
    ``supported`` / ``not_supported`` (``partially_supported`` counts as ``partial_as``);
    WiCE's rows (``evidence`` for the context) are read as they are — judged by
    ``context-recall``'s verdict step with the claim as the run's only claim; or chunk
    rows — ``{"input", "ground_truth", "chunk", "label": 0|1}`` — judged by
    ``context-precision``'s per-chunk verdict. Same prompt, judge and cache as scoring.

    Args:
        scorer: ``create_context_recall_scorer(...)`` for claim rows,
            ``create_context_precision_scorer(...)`` for chunk rows.
        data: A ``.jsonl`` / ``.json`` file, an iterable of dicts, or the labels people
            made in ``scorekit view`` (a ``scorekit-labels.sqlite`` or the folder holding
            it: the labels of this scorer's verdicts, as claim or chunk rows).
        partial_as: How ``partially_supported`` labels count.
        resamples: Bootstrap resamples of the 95% intervals.
        seed: Their seed.
        concurrency: Rows judged at once.

    Returns:
        A `Calibration`: n, accuracy, precision / recall / F1 of the positive class,
        Cohen's κ, the confusion matrix, intervals and the disagreeing rows.

    Raises:
        DatasetError: For a row of neither shape or with a bad label.
    """
    if partial_as not in _CLAIM_LABELS:
        raise ConfigError("partial_as must be 'supported' or 'not_supported'")
    resamples = integer("resamples", resamples)
    rows = calibration_rows(data, scorer.id)
    if not rows:
        raise DatasetError("calibration data holds no rows")
    if scorer.id == "context-relevance":
        from ._graded import graded_calibration

        return await graded_calibration(scorer, rows, resamples, seed, concurrency)
    cases = [_as_run(row, number, partial_as) for number, row in enumerate(rows, start=1)]

    results = await scorer.arun_many([run for run, _, _ in cases], concurrency=concurrency)
    answers = [_prediction(result, scorer.scale) for result in results]
    kept = [(i, p) for i, (p, _) in enumerate(answers) if p is not None]
    labels = [cases[i][1] for i, _ in kept]
    predicted = [bool(p) for _, p in kept]
    metrics, ci, confusion = agreement(labels, predicted, resamples=resamples, seed=seed)
    disagreements = [
        Disagreement(
            row=i + 1,
            label=cases[i][1],
            predicted=answers[i][0],
            text=cases[i][2],
            reason=answers[i][1],
        )
        for i in range(len(cases))
        if answers[i][0] is not None and answers[i][0] != cases[i][1]
    ]
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


calibrate = sync_twin(acalibrate)


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
