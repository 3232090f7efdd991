"""The pieces of a scorer's pipeline: prompt steps, step results, `not_scorable`."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from pydantic import BaseModel

from ._types import JudgeCall, ScorerRun

if TYPE_CHECKING:
    from ._model._judge import Judge

M = TypeVar("M", bound=BaseModel)
StepFn = Callable[..., Any]


@dataclass(frozen=True)
class NotScorable:
    """Returned by a step to stop the run with ``status="skipped"`` and score 0."""

    reason: str


def not_scorable(reason: str) -> NotScorable:
    """Stop this run as not applicable (``status="skipped"``, score 0, no further calls).

    Return it from any step, e.g. when the ground truth a metric needs is missing.
    """
    return NotScorable(reason)


@dataclass(frozen=True)
class PromptStep(Generic[M]):
    """A pipeline step answered by the judge model with JSON validated by pydantic.

    Attributes:
        description: What the step decides (kept in logs and docs).
        output_schema: The pydantic model the answer must validate against.
        create_prompt: ``fn(run, results) -> str | messages | None``, sync or async
            (``fn(run, results, element)`` with ``for_each``). Returning None skips the
            model call; the step's result (or that element's) is then None.
        judge: The judge for this step; defaults to the scorer's judge.
        check: ``fn(run, results, value)`` raising ``ValueError`` when a schema-valid
            answer is still wrong (e.g. a verdict per claim is missing); that triggers the
            repair round.
        version: The prompt/contract version, part of the cache key: bump it when the
            meaning of the prompt or ``check`` changes, so old cached answers are not
            reused.
        for_each: ``fn(run, results) -> list`` to fan out: one model call per element
            (concurrently, under the judge's limits), each prompt kept as
            ``prompts["name[i]"]``; the step's result is the list of answers, in order.
        samples: Ask the same prompt this many times (an odd number; each sample is
            its own cache entry) and keep ``combine(answers)``; every answer is kept in
            ``results.samples[key]`` and in ``details["samples"]``.
        combine: ``fn(answers) -> answer`` for ``samples > 1``; default: the most
            common answer (first among equals).
    """

    description: str
    output_schema: type[M]
    create_prompt: StepFn
    judge: Judge | str | None = None
    check: Callable[[ScorerRun, StepResults, M], None] | None = None
    version: str = "1"
    for_each: StepFn | None = None
    samples: int = 1
    combine: Callable[[list[M]], M] | None = None

    def __post_init__(self) -> None:
        from ._errors import ConfigError

        if not isinstance(self.samples, int) or self.samples < 1 or self.samples % 2 == 0:
            raise ConfigError(
                f"PromptStep samples must be an odd integer >= 1; got {self.samples!r}"
            )


class StepResults:
    """The results of the steps run so far, handed to every later step.

    ``results.preprocess`` / ``results.analyze`` are the latest step of that kind (as in
    Mastra); ``results["name"]`` is any step by name; ``results.score`` is set before
    the reason step. Every step's result goes into ``ScoreResult.details`` under its name,
    except steps whose name starts with ``_``.
    """

    def __init__(self, judge_calls: list[JudgeCall] | None = None) -> None:
        self.values: dict[str, Any] = {}
        self.prompts: dict[str, Any] = {}
        self.samples: dict[str, list[Any]] = {}
        self.judge_calls: list[JudgeCall] = [] if judge_calls is None else judge_calls
        self.preprocess: Any = None
        self.analyze: Any = None
        self.score: float | None = None

    def __getitem__(self, name: str) -> Any:
        return self.values[name]

    def __contains__(self, name: object) -> bool:
        return name in self.values

    def get(self, name: str, default: Any = None) -> Any:
        """The result of step ``name``, or ``default``."""
        return self.values.get(name, default)


@dataclass(frozen=True)
class Step:
    kind: str
    name: str
    fn: StepFn | PromptStep[Any]


async def call_step(fn: StepFn, *args: Any) -> Any:
    value = fn(*args)
    if hasattr(value, "__await__"):  # a coroutine or other awaitable: async step
        value = await value
    return value


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def detail_value(value: Any) -> Any:
    """A step result as kept in ``details``: pydantic models (and lists of them) dumped,
    dataclasses as dicts of their set fields (lists and dicts copied, so that results
    sharing one step result share no list; arrays as they are), the rest as is."""
    names = _FIELD_NAMES.get(type(value))
    if names is None and dataclasses.is_dataclass(value) and not isinstance(value, type):
        names = _FIELD_NAMES[type(value)] = tuple(f.name for f in dataclasses.fields(value))
    if names is not None:
        found = {}
        for name in names:
            v = getattr(value, name)
            if v is not None:
                found[name] = v.copy() if type(v) is list or type(v) is dict else v
        return found
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, list) and value and isinstance(value[0], BaseModel):
        return [v.model_dump(mode="json") if isinstance(v, BaseModel) else v for v in value]
    return value
