"""Pieces shared by the prebuilt scorers: options parsing, verdict contracts, fencing."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from .._context import ContextOptions, resolve_context
from .._errors import ConfigError
from .._messages import final_text
from .._pipeline import NotScorable, StepResults, not_scorable
from .._types import Chunk, ScorerRun

OptionsT = TypeVar("OptionsT", bound=BaseModel)


class ScaleOptions(BaseModel):
    """Options every prebuilt scorer has.

    Attributes:
        scale: Scores lie in ``[0, scale]``; a perfect score is exactly ``scale``.
    """

    model_config = ConfigDict(extra="forbid")

    scale: float = Field(default=1.0, gt=0)


def parse_options(model: type[OptionsT], options: Any, factory: str) -> OptionsT:
    """Validate ``options`` (None, a dict or ``model``) into ``model``; partial dicts merge
    with the defaults and unknown keys are an error."""
    if options is None:
        return model()
    if isinstance(options, model):
        return options
    if isinstance(options, BaseModel):
        options = options.model_dump(exclude_unset=True)
    if not isinstance(options, Mapping):
        raise ConfigError(f"{factory}: options must be a dict or {model.__name__}")
    unknown = sorted(set(options) - set(model.model_fields))
    if unknown:
        raise ConfigError(
            f"{factory}: unknown option(s) {unknown}; valid options are "
            f"{sorted(model.model_fields)}"
        )
    try:
        return model.model_validate(dict(options))
    except ValidationError as exc:
        raise ConfigError(f"{factory}: invalid options: {exc}") from None


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


class ClaimVerdict(BaseModel):
    """One claim's verdict; ``claim_index`` is its 0-based position in the prompt."""

    claim_index: int
    verdict: Literal["yes", "no"]
    reason: str = ""

    @field_validator("verdict", mode="before")
    @classmethod
    def _normalise(cls, value: Any) -> Any:
        return _yes_no(value)


class ClaimVerdicts(BaseModel):
    """Judge contract: ``{"verdicts": [{"claim_index", "verdict", "reason"}]}``."""

    verdicts: list[ClaimVerdict]


class ChunkVerdict(BaseModel):
    """One chunk's verdict; ``context_index`` is its 0-based position in the prompt."""

    context_index: int
    verdict: Literal["yes", "no"]
    reason: str = ""

    @field_validator("verdict", mode="before")
    @classmethod
    def _normalise(cls, value: Any) -> Any:
        return _yes_no(value)


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


_FENCE_TAGS = re.compile(
    r"<(/?)(context|chunk|claims|claim|answer|question|ground_truth)\b", re.IGNORECASE
)


def fence(text: str) -> str:
    """Neutralise our fence tags inside data so a chunk cannot close its fence."""
    return _FENCE_TAGS.sub(lambda m: f"[{m.group(1)}{m.group(2)}", text)


def numbered(tag: str, texts: list[str]) -> str:
    """``<tag index="0">...</tag>`` lines for a list of texts, fenced."""
    return "\n".join(f'<{tag} index="{i}">\n{fence(t)}\n</{tag}>' for i, t in enumerate(texts))


def context_block(chunks: list[Chunk]) -> str:
    """The retrieved chunks as a fenced, numbered block."""
    return f"<context>\n{numbered('chunk', [c.text for c in chunks])}\n</context>"


def context_step(options: ContextOptions, needs: str, what: str) -> Any:
    """A preprocess step: skip when field ``needs`` is empty, else resolve the context."""

    async def context(run: ScorerRun, results: StepResults) -> list[Chunk] | NotScorable:
        value = getattr(run, needs)
        if needs == "output":
            value = final_text(value)
        if value is None or (isinstance(value, str) and not value.strip()):
            return not_scorable(
                f"skipped: no {what} was given, so there is nothing to compare "
                f"the context with (pass {needs}=...)"
            )
        return await resolve_context(run, options)

    return context


def clip(text: str, limit: int = 120) -> str:
    """``text`` shortened to ``limit`` characters for reasons."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
