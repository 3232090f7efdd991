"""A prompt step's model calls: one call, a fan-out over elements, or repeated samples."""

from __future__ import annotations

from typing import Any

from .._model._judge import as_judge
from .._steps import PromptStep, StepResults, call_step
from .._tasks import map_bounded
from .._types import ScorerRun
from ._spec import ScorerSpec


async def prompt_step(
    scorer: ScorerSpec, name: str, step: PromptStep[Any], run: ScorerRun, results: StepResults
) -> Any:
    """The value of prompt step ``name``: its validated answer, or with ``for_each`` the
    list of answers, one per element (asked concurrently)."""
    if step.for_each is None:
        return await _ask(scorer, name, name, step, run, results, ())
    elements = list(await call_step(step.for_each, run, results) or ())

    async def one(i: int) -> Any:
        return await _ask(scorer, f"{name}[{i}]", name, step, run, results, (elements[i],))

    return await map_bounded(one, list(range(len(elements))), len(elements))


async def _ask(
    scorer: ScorerSpec,
    key: str,
    name: str,
    step: PromptStep[Any],
    run: ScorerRun,
    results: StepResults,
    element: tuple[Any, ...],
) -> Any:
    """One model call of a prompt step (``element`` holds the fan-out's element), or
    ``step.samples`` of them combined."""
    prompt = await call_step(step.create_prompt, run, results, *element)
    if prompt is None:
        return None
    judge = as_judge(step.judge) or scorer.judge
    assert judge is not None  # checked when the step was added
    check = None
    if step.check is not None:
        user_check = step.check

        def check(value: Any) -> None:
            user_check(run, results, value)

    results.prompts[key] = prompt

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

    if step.samples == 1:
        return await sample(0)
    answers = await map_bounded(sample, list(range(step.samples)), step.samples)
    results.samples[key] = answers
    return (step.combine or most_common)(answers)


def most_common(answers: list[Any]) -> Any:
    """The answer given most often (compared as JSON; the first among equals)."""
    keys = [a.model_dump_json() if hasattr(a, "model_dump_json") else repr(a) for a in answers]
    best = max(range(len(answers)), key=lambda i: (keys.count(keys[i]), -i))
    return answers[best]
