"""Items as the engine's jobs, and finished jobs as `ItemResult`s.

An item becomes one `Job`: its run when the item carries its output (or an earlier run's
kept target output, when resuming), else a ``prepare`` that calls the target first.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from scorers import Job, JudgeCall, JudgeSetupError, Scored, ScorerRun
from scorers._internal import constructed, exception_text

from .._data import EvalItem
from .._results import ItemError, ItemResult, TargetResult
from ._resume import ResumePlan
from ._targets import as_target_result

Target = Callable[[Any], Awaitable[Any]]


@dataclass
class Pending:
    """What is known of an item before its scorers finish.

    Attributes:
        item: The item.
        kept: Resuming: the earlier result and the scorer results it keeps.
        target_result: Resuming: the kept target output.
        target_calls: Resuming: the kept target output's model calls.
    """

    item: EvalItem
    kept: ItemResult | None = None
    target_result: TargetResult | None = None
    target_calls: list[JudgeCall] = field(default_factory=list)


def scorer_run(
    item: EvalItem,
    output: Any,
    context: Any,
    retrieved_ids: list[str] | None = None,
    *,
    checked: bool = False,
) -> ScorerRun:
    """The `ScorerRun` of an item, with the output (and retrieved context, or ids) to
    score; ``checked``: every value comes from the validated item (or a validated earlier
    result), so they are taken as they are (`constructed`)."""
    build = partial(constructed, ScorerRun) if checked else ScorerRun
    return build(
        input=item.input,
        output=output,
        ground_truth=item.ground_truth,
        context=context,
        retrieved_context_ids=retrieved_ids,
        reference_contexts=item.reference_contexts,
        reference_context_ids=item.reference_context_ids,
        claims=item.claims,
        request_context={"item_id": item.id, "metadata": item.metadata},
        run_id=item.id,
    )


def make_jobs(
    items: Sequence[EvalItem], partial: Mapping[str, ResumePlan], target: Target | None
) -> list[Job]:
    """One `Job` per item; an item resumed in part runs only its ``rescore`` scorers, on
    the kept target output."""
    jobs = []
    for item in items:
        plan = partial.get(item.id)
        if plan is not None:
            kept = plan.kept.target_result
            source: EvalItem | TargetResult = item if kept is None else kept
            pending = Pending(item, plan.kept, kept, list(plan.kept.target_calls))
            run = scorer_run(
                item, source.output, source.context, source.retrieved_context_ids, checked=True
            )
            jobs.append(Job(pending, run, only=plan.rescore, label=item.id))
        elif target is None:
            run = scorer_run(
                item, item.output, item.context, item.retrieved_context_ids, checked=True
            )
            jobs.append(Job(Pending(item), run, label=item.id))
        else:
            jobs.append(Job(Pending(item), prepare=_calling(target, item), label=item.id))
    return jobs


TargetOutcome = tuple[ScorerRun | None, "TargetResult | ItemError"]


def _calling(target: Target, item: EvalItem) -> Callable[[], Awaitable[TargetOutcome]]:
    """The job's ``prepare``: the target's run to score, and what it returned (or how
    it failed) for the `ItemResult`."""

    async def prepare() -> TargetOutcome:
        started = time.perf_counter()
        try:
            value = await target(item.input)
            result = as_target_result(value)
        except JudgeSetupError:
            raise  # a broken judge setup stops the run
        except Exception as exc:  # the target, or reading what it returned
            return None, ItemError(phase="target", message=exception_text(exc))
        result.duration_s = time.perf_counter() - started
        run = scorer_run(item, result.output, result.context, result.retrieved_context_ids)
        return run, result  # its retrieval

    return prepare


def item_result(
    scored: Scored,
    order: Sequence[str],
    fingerprints: Mapping[str, str],
    timeout: float | None,
    scales: Mapping[str, float] | None = None,
) -> ItemResult:
    """The `ItemResult` of a finished job: kept and new scorer results in the scorers'
    order, the first failure as its error (a timeout first, then the target's).
    ``scales``: the scorers' scales other than 1."""
    pending: Pending = scored.job.key
    results = scored.results  # in the scorers' order already
    if pending.kept is not None:
        found = {**pending.kept.scorer_results, **results}
        results = {sid: found[sid] for sid in order if sid in found}
    error, target_result = None, pending.target_result
    if isinstance(scored.prepared, ItemError):
        error = scored.prepared
    elif scored.prepared is not None:
        target_result = scored.prepared
    target_calls = [*pending.target_calls, *scored.prepare_calls]
    other: list[JudgeCall] = []
    if scored.timed_out:
        error = ItemError(phase="timeout", message=f"item took over {timeout:g} s")
        counted = {id(c) for c in target_calls}
        for result in results.values():
            counted.update(id(c) for c in result.judge_calls)
        other = [c for c in scored.calls if id(c) not in counted]
    elif error is None:
        failed = next((sid for sid, r in results.items() if r.status == "error"), None)
        if failed is not None:
            message = results[failed].error or ""
            error = ItemError(phase="score", scorer_id=failed, message=message)
    return ItemResult(
        item=pending.item,
        target_result=target_result,
        scorer_results=results,
        error=error,
        duration_s=scored.duration_s,
        target_calls=target_calls,
        other_calls=other,
        fingerprints=(
            fingerprints
            if len(results) == len(fingerprints)
            else {sid: fingerprints[sid] for sid in results}
        ),
        scales=scales or {},
    )
