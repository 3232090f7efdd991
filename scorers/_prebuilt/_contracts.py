"""The judge's JSON contracts (validated with pydantic) and the index checks on them."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel, field_validator


def _yes_no(value: Any) -> Any:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, float)):
        return "yes" if value == 1 else "no" if value == 0 else value
    if isinstance(value, str):
        lowered = value.strip().strip(".").lower()
        if lowered in ("yes", "true", "1", "supported", "useful"):
            return "yes"
        if lowered in ("no", "false", "0", "not supported", "unsupported", "not useful"):
            return "no"
    return value


class Claims(BaseModel):
    """Judge contract: ``{"claims": [str, ...]}``."""

    claims: list[str]


class Verdict(BaseModel):
    """A yes/no verdict with the judge's short reason (``true``, ``1``, ``"Supported"``...
    are read as yes, their opposites as no)."""

    verdict: Literal["yes", "no"]
    reason: str = ""

    @field_validator("verdict", mode="before")
    @classmethod
    def _normalise(cls, value: Any) -> Any:
        return _yes_no(value)


class ClaimVerdict(Verdict):
    """One claim's verdict; ``claim_index`` is its 0-based position in the prompt."""

    claim_index: int


class ClaimVerdicts(BaseModel):
    """Judge contract: ``{"verdicts": [{"claim_index", "verdict", "reason"}]}``."""

    verdicts: list[ClaimVerdict]


class ChunkVerdict(Verdict):
    """One chunk's verdict; ``context_index`` is its 0-based position in the prompt."""

    context_index: int


class ChunkVerdicts(BaseModel):
    """Judge contract: ``{"verdicts": [{"context_index", "verdict", "reason"}]}``."""

    verdicts: list[ChunkVerdict]


def check_indices(indices: Iterable[int], expected: int, field: str) -> None:
    """Raise ValueError unless ``indices`` are exactly 0..expected-1, once each."""
    seen: set[int] = set()
    duplicate, out_of_range = [], []
    for i in indices:
        if not 0 <= i < expected:
            out_of_range.append(i)
        elif i in seen:
            duplicate.append(i)
        seen.add(i)
    missing = [i for i in range(expected) if i not in seen]
    if missing or duplicate or out_of_range:
        problems = []
        if missing:
            problems.append(f"missing {field} {missing}")
        if duplicate:
            problems.append(f"duplicate {field} {sorted(set(duplicate))}")
        if out_of_range:
            problems.append(f"{field} out of range {sorted(set(out_of_range))}")
        raise ValueError(
            f"expected exactly one verdict for each {field} 0..{expected - 1}: "
            + "; ".join(problems)
        )
