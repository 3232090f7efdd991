"""`Scorer`, the spec of a scorer, and `create_scorer`, its immutable builder.

A scorer is data: id, judge, scale, steps, score and reason functions, options (and, for
some prebuilt scorers, a fast path the engine may use). Running it is the engine's work
(`scorers._engine`); ``arun`` / ``run`` / ``run_many`` hand over to it.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import ValidationError

from ._checks import clip_scaled, integer
from ._checks import scale as check_scale
from ._engine import FastPath, error_result, model_free, score_one, score_runs
from ._errors import ConfigError
from ._model._judge import Judge, as_judge
from ._steps import PromptStep, Step, StepFn
from ._sync import run_sync
from ._types import ScoreResult, ScorerRun

_KIND_ORDER = {"preprocess": 0, "analyze": 1}


class Scorer:
    """A scorer built by `create_scorer`; every builder method returns a new scorer.

    Attributes:
        id: The scorer id (also its key in run results and its CLI name).
        description: One line on what it measures.
        judge: The default judge for prompt steps, or None for model-free scorers.
        scale: Scores returned by ``generate_score`` (in [0, 1]) are multiplied by it.
    """

    def __init__(
        self,
        *,
        id: str,
        description: str = "",
        judge: Judge | None = None,
        scale: float = 1.0,
        steps: tuple[Step, ...] = (),
        score_fn: StepFn | None = None,
        reason_step: StepFn | PromptStep[Any] | None = None,
        config: Any = None,
    ):
        self.id = id
        self.description = description
        self.judge = judge
        self.scale = check_scale(scale)
        self._steps = steps
        self._score_fn = score_fn
        self._reason_step = reason_step
        self._config = config
        self._fast_path: FastPath | None = None

    @property
    def steps(self) -> tuple[Step, ...]:
        """The preprocess and analyze steps, in the order they run."""
        return self._steps

    @property
    def score_fn(self) -> StepFn | None:
        """The ``generate_score`` function."""
        return self._score_fn

    @property
    def reason_step(self) -> StepFn | PromptStep[Any] | None:
        """The ``generate_reason`` function or `PromptStep`, if any."""
        return self._reason_step

    @property
    def config(self) -> Any:
        """The options the scorer was built with (recorded in its `fingerprint`)."""
        return self._config

    @property
    def model_free(self) -> bool:
        """Whether the scorer calls no model: no judge and no `PromptStep`. `run_evals`
        runs such scorers inline, one after another, without a task per item: their steps
        are CPU work, and tasks would only add overhead. (A function step that awaits
        slow I/O of its own still works, one item at a time; give such a scorer a
        `PromptStep` or a judge to have it run concurrently.)"""
        return model_free(self)

    @property
    def fingerprint(self) -> str:
        """A short hash of everything that can change this scorer's scores: id, scale,
        ``config``, steps (function names, prompt versions, response schemas) and judge
        (model, api_base, sampling parameters). Resume re-scores an item whose result
        has another fingerprint. Code changes inside a step function do not show: bump
        the `PromptStep` version (or the scorer id) when a step's meaning changes."""
        from ._fingerprint import scorer_fingerprint

        return scorer_fingerprint(self)

    def describe(self) -> dict[str, Any]:
        """What this scorer is, as JSON values: ``scale``, ``options``,
        ``prompt_versions``, ``judge`` (model, api_base, sampling parameters), its
        ``fingerprint`` and its ``definition`` (the fingerprint without the judge). Results
        files record it, and `compare_runs` refuses runs whose definitions differ."""
        from ._fingerprint import scorer_description

        return scorer_description(self)

    def __repr__(self) -> str:
        names = [s.name for s in self._steps]
        return f"Scorer(id={self.id!r}, steps={names}, judge={self.judge!r})"

    def with_judge(self, judge: Judge | str) -> Scorer:
        """The same scorer with another default judge (prompt steps that name their own
        judge keep it)."""
        resolved = as_judge(judge)
        if resolved is None:
            raise ConfigError("with_judge() takes a litellm model string or a Judge")
        clone = copy.copy(self)
        clone.judge = resolved
        return clone

    def _with(self, **changes: Any) -> Scorer:
        clone = copy.copy(self)
        clone._fast_path = None  # a changed pipeline no longer matches the fast path
        for name, value in changes.items():
            setattr(clone, f"_{name}", value)
        return clone

    def scaled(self, number: float) -> float:
        """A ``generate_score`` value in [0, 1] as the scorer reports it: times ``scale``,
        clipped to ``[0, scale]``."""
        return clip_scaled(number, self.scale)

    def _add(self, kind: str, fn: StepFn | PromptStep[Any], name: str | None) -> Scorer:
        if not callable(fn) and not isinstance(fn, PromptStep):
            raise ConfigError(f"{kind}() takes a function or a PromptStep, got {type(fn).__name__}")
        if isinstance(fn, PromptStep) and fn.judge is None and self.judge is None:
            raise ConfigError(
                f"the {kind} PromptStep has no judge: pass judge= to create_scorer or PromptStep"
            )
        taken = {s.name for s in self._steps}
        if name is None:
            name = kind
            n = 2
            while name in taken:
                name, n = f"{kind}_{n}", n + 1
        elif name in taken:
            raise ConfigError(f"a step named {name!r} already exists in scorer {self.id!r}")
        steps = sorted((*self._steps, Step(kind, name, fn)), key=lambda s: _KIND_ORDER[s.kind])
        return self._with(steps=tuple(steps))

    def preprocess(self, step: StepFn | PromptStep[Any], *, name: str | None = None) -> Scorer:
        """Add a preprocess step: ``fn(run, results)`` (sync or async) or a `PromptStep`."""
        return self._add("preprocess", step, name)

    def analyze(self, step: StepFn | PromptStep[Any], *, name: str | None = None) -> Scorer:
        """Add an analyze step: ``fn(run, results)`` (sync or async) or a `PromptStep`."""
        return self._add("analyze", step, name)

    def generate_score(self, fn: StepFn) -> Scorer:
        """Set the score function ``fn(run, results) -> float in [0, 1]`` (before scaling)."""
        if not callable(fn):
            raise ConfigError("generate_score() takes a function (run, results) -> number")
        return self._with(score_fn=fn)

    def generate_reason(self, step: StepFn | PromptStep[Any]) -> Scorer:
        """Set the reason: ``fn(run, results, score) -> str`` or a `PromptStep`."""
        if not callable(step) and not isinstance(step, PromptStep):
            raise ConfigError("generate_reason() takes a function or a PromptStep")
        return self._with(reason_step=step)

    def _checked(
        self, run: ScorerRun | Mapping[str, Any] | None, fields: dict[str, Any]
    ) -> ScorerRun:
        try:
            if run is None:
                return ScorerRun(**fields)
            if fields:
                raise ConfigError("pass either a ScorerRun or keyword fields, not both")
            return run if isinstance(run, ScorerRun) else ScorerRun.model_validate(run)
        except ValidationError as exc:
            raise ConfigError(f"invalid scorer input for {self.id!r}: {exc}") from None

    async def arun(
        self, run: ScorerRun | Mapping[str, Any] | None = None, /, **fields: Any
    ) -> ScoreResult:
        """Score one run.

        Args:
            run: A `ScorerRun` (or dict); alternatively pass its fields as keywords.
            **fields: `ScorerRun` fields: input, output, ground_truth, context, ...

        Returns:
            A `ScoreResult`; ``status="skipped"`` when a step returned `not_scorable`.

        Raises:
            ConfigError: For invalid inputs or a missing context source.
            JudgeError: When the judge model fails. Every exception leaving ``arun``
                carries the model calls made so far as ``exc.judge_calls`` (what
                `error_result` records).
        """
        if self._score_fn is None:
            raise ConfigError(f"scorer {self.id!r} has no generate_score step")
        return await score_one(self, self._checked(run, fields))

    def run(
        self, run: ScorerRun | Mapping[str, Any] | None = None, /, **fields: Any
    ) -> ScoreResult:
        """Synchronous `arun`; works in scripts and inside a running event loop (Jupyter)."""
        return run_sync(self.arun, self._checked(run, fields))

    async def arun_many(
        self,
        runs: Iterable[ScorerRun | Mapping[str, Any]],
        *,
        concurrency: int = 16,
        raise_errors: bool = False,
    ) -> list[ScoreResult]:
        """Score many runs in one event loop, ``concurrency`` at a time, in input order.

        Args:
            runs: `ScorerRun`s or dicts of their fields.
            concurrency: Runs in flight at once (judge calls are limited by the judge too).
            raise_errors: Re-raise the first failure instead of returning it as a result
                with ``status="error"``.

        Raises:
            JudgeSetupError: At the first run that meets a broken setup (no or a rejected
                API key, an unknown model): every other run would fail the same way.
        """
        concurrency = integer("concurrency", concurrency)
        if self._score_fn is None:
            raise ConfigError(f"scorer {self.id!r} has no generate_score step")
        checked: list[ScorerRun | ConfigError] = []
        for run in runs:
            try:
                checked.append(self._checked(run, {}))
            except ConfigError as exc:
                if raise_errors:
                    raise
                checked.append(exc)
        valid = [run for run in checked if isinstance(run, ScorerRun)]
        scored = iter(
            await score_runs(self, valid, concurrency=concurrency, raise_errors=raise_errors)
        )
        return [
            next(scored) if isinstance(run, ScorerRun) else self.error_result(run)
            for run in checked
        ]

    def run_many(
        self,
        runs: Iterable[ScorerRun | Mapping[str, Any]],
        *,
        concurrency: int = 16,
        raise_errors: bool = False,
    ) -> list[ScoreResult]:
        """Synchronous `arun_many`."""
        return run_sync(self.arun_many, runs, concurrency=concurrency, raise_errors=raise_errors)

    def error_result(self, exc: BaseException, duration_s: float = 0.0) -> ScoreResult:
        """The `ScoreResult` (``status="error"``) that stands for a failed run, with the
        model calls the run made before it failed."""
        return error_result(self.id, exc, duration_s)


def create_scorer(
    *,
    id: str,
    description: str = "",
    judge: Judge | str | None = None,
    scale: float = 1.0,
    config: Any = None,
) -> Scorer:
    """Start a custom scorer; add steps with the builder methods.

    Example:
        ```python
        scorer = (
            create_scorer(id="keyword-coverage", judge="openai/gpt-4o-mini")
            .preprocess(lambda run, results: keywords(run.ground_truth))
            .generate_score(lambda run, results: coverage(results.preprocess, run.output))
        )
        ```

    Args:
        id: Scorer id; results are keyed by it.
        description: What it measures.
        judge: A litellm model string or `Judge` for `PromptStep`s.
        scale: Multiplier applied to the [0, 1] score.
        config: The options your steps close over (a dict or pydantic model); part of
            the scorer's `fingerprint`, so resuming a run after changing them re-scores.

    Raises:
        ConfigError: For an empty id or a scale that is not a finite number in (0, 1e9].
    """
    if not isinstance(id, str) or not id.strip():
        raise ConfigError("create_scorer needs a non-empty id")
    return Scorer(id=id, description=description, judge=as_judge(judge), scale=scale, config=config)


__all__ = ["Scorer", "create_scorer"]
