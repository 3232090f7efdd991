"""Judge variance: verdict steps sampled k times, the majority kept, the spread reported."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._steps import StepResults
from .._types import ScorerRun
from ._ranking import average_precision


def majority_by_index(field: str) -> Callable[[list[Any]], Any]:
    """``combine`` for sampled verdict lists: per ``field`` (``claim_index`` or
    ``context_index``) the majority verdict, with the reason of the first sample that
    gave it."""

    def combine(answers: list[Any]) -> Any:
        first = answers[0]
        merged = []
        for verdict in first.verdicts:
            index = getattr(verdict, field)
            votes = [
                next((v for v in a.verdicts if getattr(v, field) == index), None) for a in answers
            ]
            yes = sum(v is not None and v.verdict == "yes" for v in votes)
            winner = "yes" if yes * 2 > len(answers) else "no"
            chosen = next((v for v in votes if v is not None and v.verdict == winner), verdict)
            merged.append(chosen.model_copy(update={"verdict": winner}))
        return type(first)(verdicts=merged)

    return combine


def _verdict_lists(results: StepResults, key: str, per_chunk: bool, k: int) -> list[list[str]]:
    """Per sample j, its verdicts ("yes"/"no") in index order."""
    if per_chunk:
        count = len(results["context"])
        return [
            [results.samples[f"{key}[{i}]"][j].verdicts[0].verdict for i in range(count)]
            for j in range(k)
        ]
    out = []
    for answer in results.samples.get(key, []):
        ordered = sorted(
            answer.verdicts, key=lambda v: getattr(v, "claim_index", getattr(v, "context_index", 0))
        )
        out.append([v.verdict for v in ordered])
    return out


def sampling_step(kind: str, key: str, k: int, per_chunk: bool = False) -> Any:
    """A step summarising k samples: per-verdict agreement with the majority, its mean,
    each sample's own score (recall: share supported; precision: AP) and their spread."""

    def sampling(run: ScorerRun, results: StepResults) -> dict[str, Any] | None:
        if not results["context"] or (kind == "recall" and not results["claims_used"]):
            return None
        lists = _verdict_lists(results, key, per_chunk, k)
        if not lists or not lists[0]:
            return None
        n = len(lists[0])
        majority = [sum(s[i] == "yes" for s in lists) * 2 > len(lists) for i in range(n)]
        agreement = [
            sum((s[i] == "yes") == majority[i] for s in lists) / len(lists) for i in range(n)
        ]
        if kind == "recall":
            scores = [sum(v == "yes" for v in s) / n for s in lists]
        else:
            scores = [average_precision([v == "yes" for v in s]) for s in lists]
        return {
            "samples": len(lists),
            "agreement": sum(agreement) / n,
            "per_verdict_agreement": agreement,
            "sample_scores": scores,
            "spread": max(scores) - min(scores),
        }

    return sampling
