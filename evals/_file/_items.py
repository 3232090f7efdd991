"""One finished item: its result, its error, and a run's failures as records."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any, Literal

from pydantic import BaseModel, Field

from scorers import Chunk, JudgeCall, ScoreResult

from .._data import EvalItem


class TargetResult(BaseModel):
    """The target's part of an item.

    Attributes:
        output: The response (an `AgentOutput` for agents).
        context: Retrieved chunks the target returned, if any.
        retrieved_context_ids: Or the ids it retrieved, in rank order, without text.
        duration_s: Wall time of the target call.
    """

    output: Any = None
    context: list[Chunk] | None = None
    retrieved_context_ids: list[str] | None = None
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


def skip_reasons(
    items: Iterable[ItemResult],
    scorer_id: str,
    top: int = 3,
    words: Callable[[str], str] = str,
) -> str:
    """Why ``scorer_id`` gave no number on ``items``: the most common skip reasons and
    errors with their counts (``"2 × skipped: no ground truth; 1 × error: ..."``), each
    put in ``words`` (the CLI's spelling). A skip reason is scorekit's own sentence and
    ends in its advice: it is kept whole (its first line); an error's message is cut
    to one short line."""
    reasons: Counter[str] = Counter()
    for item in items:
        result = item.scorer_results.get(scorer_id)
        if result is None:
            if item.error is not None:
                message = _first_line(words(item.error.message), ERROR_LINE)
                reasons[f"item failed ({item.error.phase}): {message}"] += 1
            continue
        if result.value is None:
            text = result.error if result.status == "error" else result.reason
            limit = ERROR_LINE if result.status == "error" else None
            reasons[f"{result.status}: {_first_line(words(text or ''), limit)}"] += 1
    shown = [f"{count} × {reason}" for reason, count in reasons.most_common(top)]
    more = len(reasons) - top
    return "; ".join(shown) + (f"; and {more} other reasons" if more > 0 else "")


ERROR_LINE = 200
"""The most of an error's message a summary of reasons shows."""


def _first_line(text: str, limit: int | None) -> str:
    line = " ".join(text.strip().splitlines()[:1]).removeprefix("skipped: ")
    return line if limit is None or len(line) <= limit else line[: limit - 1] + "…"


def run_errors(items: Iterable[ItemResult]) -> list[ErrorRecord]:
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
        scales: The scale of each scorer whose scale is not 1 (``{}``: all at 1), so that
            summaries rebuilt from a results file clip confidence intervals as the run
            did; None in files written before it was recorded.
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
    scales: dict[str, float] | None = None
