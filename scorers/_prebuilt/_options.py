"""Options every prebuilt scorer shares, and the context step that starts each of them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import chain
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from .._checks import MAX_SCALE
from .._context import ContextOptions, resolve_context
from .._errors import ConfigError
from .._i18n import Language, data_language, detect_language
from .._messages import question_text
from .._reading import result_text as final_text
from .._steps import NotScorable, StepResults, not_scorable
from .._types import Chunk, ScorerRun

OptionsT = TypeVar("OptionsT", bound=BaseModel)


class ScaleOptions(BaseModel):
    """Options every prebuilt scorer has.

    Attributes:
        scale: Scores lie in ``[0, scale]``; a perfect score is exactly ``scale``. Finite,
            > 0 and at most 1e9.
    """

    model_config = ConfigDict(extra="forbid")

    # strict: True is not 1 and "2" is not 2 (a JSON number only)
    scale: float = Field(default=1.0, gt=0, le=MAX_SCALE, allow_inf_nan=False, strict=True)


class SamplingOptions(BaseModel):
    """The judge-variance option of the LLM scorers.

    Attributes:
        samples: Sample the verdict step this many times (an odd number; claims are
            extracted once; each sample is its own cache entry) and keep the majority
            verdict; ``details["sampling"]`` holds the per-verdict agreement and each
            sample's score. Use a judge with ``temperature > 0``: at 0 most providers
            answer alike.
    """

    model_config = ConfigDict(extra="forbid")

    samples: int = Field(default=1, ge=1)

    @field_validator("samples")
    @classmethod
    def _odd(cls, value: int) -> int:
        if value % 2 == 0:
            raise ValueError("samples must be odd (1, 3, 5, ...), so that a majority exists")
        return value


class LanguageOptions(BaseModel):
    """The reason-language option of the model-free scorers.

    Attributes:
        language: The language of the reason (``en``, ``ko``, ``zh``, ``ja``); ``auto``
            (default) follows the script of the run's ground truth, else its question,
            else its reference texts, else its retrieved chunks. Numbers, ids and quoted
            text are left as they are.
    """

    model_config = ConfigDict(extra="forbid")

    language: Language = "auto"


def run_language(run: ScorerRun, language: str) -> str:
    """The language of a model-free scorer's reason for ``run`` (see `LanguageOptions`)."""
    if language != "auto":
        return language
    question = run.input
    if question is not None and not isinstance(question, str):
        question = question_text(question)  # a message history: its last user message
    for text in (run.ground_truth, question):
        if text and not text.isspace():
            return detect_language(text)
    chunks = (c.text for c in run.context or ())
    return data_language(language, chain(run.reference_contexts or (), chunks))


def run_languages(runs: Sequence[ScorerRun], language: str, memo: dict[Any, Any]) -> list[str]:
    """`run_language` of each run of a fast path's block, computed once per block (the
    plug-ins of one block share ``memo``)."""
    key = ("languages", language)
    found = memo.get(key)
    if found is None:
        found = memo[key] = [run_language(run, language) for run in runs]
    return found  # type: ignore[no-any-return]


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
        problems = "; ".join(
            f"option {'.'.join(str(p) for p in err['loc']) or '?'!r}: {err['msg'].removeprefix('Value error, ')} "
            f"(got {err.get('input')!r})"
            for err in exc.errors(include_url=False)
        )
        raise ConfigError(f"{factory}: invalid options: {problems}") from None


def context_step(options: ContextOptions, needs: str, what: str) -> Any:
    """A preprocess step: skip when field ``needs`` is empty, else resolve the context."""

    async def context(run: ScorerRun, results: StepResults) -> list[Chunk] | NotScorable:
        value = getattr(run, needs)
        if needs == "output":
            value = final_text(value)
        if value is None or (isinstance(value, str) and not value.strip()):
            hint = ""
            if needs == "ground_truth" and final_text(run.output).strip():
                hint = (
                    "; to judge the chunks against the run's output instead, as Mastra's "
                    "createContextPrecisionScorer does, use create_context_utilization_scorer"
                )
            return not_scorable(
                f"skipped: no {what} was given, so there is nothing to compare "
                f"the context with (pass {needs}=...){hint}"
            )
        return await resolve_context(run, options)

    return context
