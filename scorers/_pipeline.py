"""`create_scorer`: the preprocess → analyze → generate_score → generate_reason pipeline."""

from __future__ import annotations

import contextlib
import copy
import gc
import math
import time
from collections.abc import Awaitable, Callable, Generator, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from ._calls import attach_calls, calls_of, record_calls
from ._checks import integer
from ._checks import scale as check_scale
from ._errors import ConfigError, JudgeSetupError
from ._judge import Judge, as_judge
from ._steps import (
    NotScorable,
    PromptStep,
    Step,
    StepFn,
    StepResults,
    call_step,
    detail_value,
)
from ._sync import run_sync
from ._tasks import map_bounded
from ._types import ScoreResult, ScorerRun

_KIND_ORDER = {"preprocess": 0, "analyze": 1}

BatchFn = Callable[["Scorer", Sequence[ScorerRun], dict[Any, Any]], list[ScoreResult | None]]
"""``fn(scorer, runs, memo)``: a scorer's vectorised implementation (see `Scorer.score_block`)."""


@dataclass(frozen=True)
class Kernel:
    """Numeric work of a batch implementation that may run in a worker thread.

    Attributes:
        compute: Called in the worker thread: it should spend its time in C code that
            releases the GIL (rapidfuzz's multi-core ``cpdist``), its inputs prepared
            before.
        finish: Called in the scoring thread with what ``compute`` returned: the
            ``memo`` entry of the batch.
    """

    compute: Callable[[], Any]
    finish: Callable[[Any], Any]


KernelsFn = Callable[[Sequence[ScorerRun]], dict[Any, Kernel]]
"""``fn(runs)``: a batch implementation's `Kernel` per ``memo`` key (see
`Scorer.block_kernels`)."""


@contextlib.contextmanager
def frozen_gc() -> Iterator[None]:
    """Keep the objects that exist now (a batch's inputs) out of the cyclic GC's scans.

    A batch holds thousands of long-lived input objects; without this, every full
    collection triggered by the batch's own allocations rescans all of them, which costs
    more than the scoring itself for cheap scorers. Nothing is leaked: the objects return
    to the oldest generation afterwards. A no-op when the caller has frozen objects.
    """
    if gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic GC for CPU-bound work that makes many objects and no cycles
    (loading rows, model-free scoring): the collections it would trigger rescan every
    young object and cost more than validating the rows. Reference counting still frees
    everything. Afterwards the objects made meanwhile move straight to the oldest
    generation (``gc.freeze()`` then ``gc.unfreeze()``), so that turning the GC back on
    does not rescan them all at once. A no-op when the GC is off already.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        if not gc.get_freeze_count():  # nobody else's frozen objects to thaw
            gc.freeze()
            gc.unfreeze()
        gc.enable()


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
        self._batch: BatchFn | None = None
        self._kernels: KernelsFn | None = None

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
        fns = [s.fn for s in self._steps] + [self._reason_step]
        return self.judge is None and not any(isinstance(fn, PromptStep) for fn in fns)

    @property
    def fingerprint(self) -> str:
        """A short hash of everything that can change this scorer's scores: id, scale,
        ``config``, steps (function names, prompt versions, response schemas) and judge
        (model, api_base, sampling parameters). Resume re-scores an item whose result
        has another fingerprint. Code changes inside a step function do not show: bump
        the `PromptStep` version (or the scorer id) when a step's meaning changes."""
        from ._fingerprint import scorer_fingerprint

        return scorer_fingerprint(self)

    def __repr__(self) -> str:
        names = [s.name for s in self._steps]
        return f"Scorer(id={self.id!r}, steps={names}, judge={self.judge!r})"

    def _with(self, **changes: Any) -> Scorer:
        clone = copy.copy(self)
        clone._batch = None  # a changed pipeline no longer matches a batch implementation
        clone._kernels = None
        for name, value in changes.items():
            setattr(clone, f"_{name}", value)
        return clone

    @property
    def batched(self) -> bool:
        """Whether the scorer has a vectorised implementation that scores many runs in one
        pass (the prebuilt model-free scorers do). `run_evals` then scores blocks of items
        at once, with the same results as the step pipeline. Adding or replacing a step
        drops it."""
        return self._batch is not None

    def _with_batch(self, fn: BatchFn, kernels: KernelsFn | None = None) -> Scorer:
        clone = copy.copy(self)
        clone._batch, clone._kernels = fn, kernels
        return clone

    def block_kernels(self, runs: Sequence[ScorerRun]) -> dict[Any, Kernel]:
        """The numeric kernels `score_block` needs for ``runs``, by ``memo`` key, their
        inputs prepared: `run_evals` computes the next block's kernels in a worker thread
        while it builds this block's results, and hands `score_block` the finished
        entries. `score_block` computes any entry missing from ``memo`` itself, so
        running them is never required. Empty without a batch implementation."""
        return {} if self._kernels is None else self._kernels(runs)

    def score_block(
        self, runs: Sequence[ScorerRun], memo: dict[Any, Any]
    ) -> list[ScoreResult | None]:
        """Score validated runs with the batch implementation: one result per run, None
        where the run needs the step pipeline (`run_inline`) instead. ``memo`` is shared
        by the scorers of one block (the similarity values of its chunk-reference
        pairs). Without a batch implementation every entry is None."""
        if self._batch is None or not runs:
            return [None] * len(runs)
        started = time.perf_counter()
        results = self._batch(self, runs, memo)
        each = (time.perf_counter() - started) / len(runs)
        for result in results:
            if result is not None:  # a plain write: the batch's own fresh results
                result.__dict__["duration_s"] = each
        return results

    def scaled(self, number: float) -> float:
        """A ``generate_score`` value in [0, 1] as the scorer reports it: times ``scale``,
        clipped to ``[0, scale]``."""
        value, scale = number * self.scale, self.scale
        return 0.0 if value < 0.0 else scale if value > scale else value  # NaN stays NaN

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

    async def _prompt(
        self, name: str, step: PromptStep[Any], run: ScorerRun, results: StepResults
    ) -> Any:
        if step.for_each is None:
            return await self._ask(name, name, step, run, results, ())
        elements = list(await call_step(step.for_each, run, results) or ())

        async def one(i: int) -> Any:
            return await self._ask(f"{name}[{i}]", name, step, run, results, (elements[i],))

        return await map_bounded(one, list(range(len(elements))), len(elements))

    async def _ask(
        self,
        key: str,
        name: str,
        step: PromptStep[Any],
        run: ScorerRun,
        results: StepResults,
        element: tuple[Any, ...],
    ) -> Any:
        """One model call of a prompt step (``element`` holds the fan-out's element)."""
        prompt = await call_step(step.create_prompt, run, results, *element)
        if prompt is None:
            return None
        judge = as_judge(step.judge) or self.judge
        assert judge is not None  # checked when the step was added
        check = None
        if step.check is not None:
            user_check = step.check

            def check(value: Any) -> None:
                user_check(run, results, value)

        results.prompts[key] = prompt
        if step.samples == 1:
            value, _ = await judge.structured(
                prompt, step.output_schema, step=name, check=check, version=step.version
            )
            return value

        async def sample(index: int) -> Any:
            answer, _ = await judge.structured(
                prompt,
                step.output_schema,
                step=name,
                check=check,
                version=step.version,
                sample_index=index,
            )
            return answer

        answers = await map_bounded(sample, list(range(step.samples)), step.samples)
        results.samples[key] = answers
        return (step.combine or most_common)(answers)

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
        started = time.perf_counter()
        try:
            if run is None:
                run = ScorerRun(**fields)
            elif fields:
                raise ConfigError("pass either a ScorerRun or keyword fields, not both")
            elif not isinstance(run, ScorerRun):
                run = ScorerRun.model_validate(run)
        except ValidationError as exc:
            raise ConfigError(f"invalid scorer input for {self.id!r}: {exc}") from None
        with record_calls() as calls:
            try:
                return await self._run_steps(run, StepResults(calls), started)
            except BaseException as exc:
                attach_calls(exc, calls)
                raise

    def run_inline(self, run: ScorerRun) -> ScoreResult | Awaitable[ScoreResult]:
        """Score a validated run without a task or event-loop round trip, when possible.

        Model-free steps seldom wait for anything: their coroutine then finishes on its
        first step, and the result comes back at once. If a step does wait (an async
        extractor doing I/O), an awaitable is returned that finishes the same run under
        the caller's event loop — nothing is computed twice. Used by `run_evals` for
        `model_free` scorers.
        """
        if self._score_fn is None:
            raise ConfigError(f"scorer {self.id!r} has no generate_score step")
        coro = self._run_steps(run, StepResults([]), time.perf_counter())
        try:
            yielded = coro.send(None)
        except StopIteration as stop:
            return stop.value  # type: ignore[no-any-return]
        return _Continue(coro, yielded)

    async def _run_steps(self, run: ScorerRun, results: StepResults, started: float) -> ScoreResult:
        for step in self._steps:
            if isinstance(step.fn, PromptStep):
                value = await self._prompt(step.name, step.fn, run, results)
            else:
                value = step.fn(run, results)
                if hasattr(value, "__await__"):  # an async step
                    value = await value
            if isinstance(value, NotScorable):
                return self._finish(results, started, 0.0, value.reason, "skipped")
            results.values[step.name] = value
            setattr(results, step.kind, value)

        assert self._score_fn is not None  # checked by arun
        raw = self._score_fn(run, results)
        if hasattr(raw, "__await__"):
            raw = await raw
        if isinstance(raw, NotScorable):
            return self._finish(results, started, 0.0, raw.reason, "skipped")
        try:
            number = float(raw)
        except (TypeError, ValueError):
            raise ConfigError(
                f"generate_score of {self.id!r} returned {raw!r}; it must return a number"
            ) from None
        if math.isnan(number):
            raise ConfigError(f"generate_score of {self.id!r} returned NaN")
        score = self.scaled(number)
        results.score = score

        reason = ""
        if isinstance(self._reason_step, PromptStep):
            value = await self._prompt("generate_reason", self._reason_step, run, results)
            reason = str(getattr(value, "reason", value) or "")
        elif self._reason_step is not None:
            text = self._reason_step(run, results, score)
            if hasattr(text, "__await__"):
                text = await text
            reason = str(text or "")
        return self._finish(results, started, score, reason, "scored")

    def _finish(
        self, results: StepResults, started: float, score: float, reason: str, status: str
    ) -> ScoreResult:
        details = {k: detail_value(v) for k, v in results.values.items() if k[:1] != "_"}
        if results.samples:
            details["samples"] = {
                k: [detail_value(a) for a in v] for k, v in results.samples.items()
            }
        if results.prompts:
            details["prompts"] = results.prompts
        return ScoreResult(
            scorer_id=self.id,
            score=score,
            reason=reason,
            status=status,  # type: ignore[arg-type]
            details=details,
            judge_calls=results.judge_calls,
            duration_s=time.perf_counter() - started,
        )

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

        async def one(run: ScorerRun | Mapping[str, Any]) -> ScoreResult:
            started = time.perf_counter()
            try:
                return await self.arun(run)
            except JudgeSetupError:
                raise  # every further run would fail the same way
            except Exception as exc:
                if raise_errors:
                    raise
                return self.error_result(exc, time.perf_counter() - started)

        concurrency = integer("concurrency", concurrency)
        with frozen_gc():
            return await map_bounded(one, list(runs), concurrency)

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
        return ScoreResult(
            scorer_id=self.id,
            status="error",
            error=f"{type(exc).__name__}: {exc}",
            reason=f"error: {exc}",
            duration_s=duration_s,
            judge_calls=calls_of(exc),
        )

    def run(
        self, run: ScorerRun | Mapping[str, Any] | None = None, /, **fields: Any
    ) -> ScoreResult:
        """Synchronous `arun`; works in scripts and inside a running event loop (Jupyter)."""
        if run is not None and fields:
            raise ConfigError("pass either a ScorerRun or keyword fields, not both")
        try:
            parsed = ScorerRun(**fields) if run is None else run
        except ValidationError as exc:
            raise ConfigError(f"invalid scorer input for {self.id!r}: {exc}") from None
        return run_sync(self.arun, parsed)


def most_common(answers: list[Any]) -> Any:
    """The answer given most often (compared as JSON; the first among equals)."""
    keys = [a.model_dump_json() if hasattr(a, "model_dump_json") else repr(a) for a in answers]
    best = max(range(len(answers)), key=lambda i: (keys.count(keys[i]), -i))
    return answers[best]


class _Continue:
    """Finishes a coroutine that was started by hand (`Scorer.run_inline`) and then
    waited: what it yields goes to the event loop, what the loop sends back goes in."""

    def __init__(self, coro: Any, yielded: Any):
        self._coro, self._yielded = coro, yielded

    def __await__(self) -> Generator[Any, Any, ScoreResult]:
        value = self._yielded
        while True:
            try:
                sent = yield value
            except GeneratorExit:
                self._coro.close()
                raise
            except BaseException as exc:
                try:
                    value = self._coro.throw(exc)
                except StopIteration as stop:
                    return stop.value  # type: ignore[no-any-return]
            else:
                try:
                    value = self._coro.send(sent)
                except StopIteration as stop:
                    return stop.value  # type: ignore[no-any-return]


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
