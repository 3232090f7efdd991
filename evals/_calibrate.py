"""`calibrate`: how often the judge's verdicts agree with human labels.

Each labelled row is scored by the scorer's own verdict step — same prompt, same judge,
same cache — and the verdict is compared with the label: accuracy, precision / recall /
F1 of the positive class, Cohen's κ and the confusion matrix, each with a bootstrap 95%
interval from a fixed seed.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

from scorers import ConfigError, DatasetError, Scorer, ScoreResult, ScorerRun
from scorers._internal import integer

from ._calibration import Calibration, Disagreement, agreement
from ._files import Columns, read_rows
from ._twins import sync_twin

_CLAIM_LABELS = {"supported": True, "not_supported": False}
_CALIBRATION_COLUMNS = Columns(
    lists=("context", "evidence"),
    known=("claim", "context", "evidence", "label", "input", "ground_truth", "chunk", "response"),
)
"""The fields of calibration rows (for CSV: the context is a list)."""


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
