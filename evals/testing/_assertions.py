"""`assert_score`: a scorer as an assertion in your own test suite."""

from __future__ import annotations

from typing import Any

from scorers import Scorer, ScoreResult, ScorerRun
from scorers._internal import run_sync

from ._collector import COLLECTOR, Recorded


def _check(
    result: ScoreResult,
    run: ScorerRun,
    min_score: float | None,
    max_score: float | None,
    allow_skipped: bool,
) -> ScoreResult:
    __tracebackhide__ = True  # pytest shows the message, not scorekit's source
    problems = []
    if result.status == "error":
        problems.append(f"the scorer failed: {result.error}")
    elif result.status == "skipped" and not allow_skipped:
        problems.append("the run was skipped (allow_skipped=True accepts that)")
    elif (score := result.value) is not None:
        if min_score is not None and score < min_score:
            problems.append(f"score {score:.4g} < min_score {min_score:g}")
        if max_score is not None and score > max_score:
            problems.append(f"score {score:.4g} > max_score {max_score:g}")
    COLLECTOR.records.append(
        Recorded(
            test=COLLECTOR.current_test,
            scorer_id=result.scorer_id,
            score=result.score,
            status=result.status,
            passed=not problems,
            result=result.model_dump(mode="json"),
            run=run.model_dump(mode="json", exclude={"request_context"}),
        )
    )
    if problems:
        raise AssertionError(
            f"{result.scorer_id}: {'; '.join(problems)}\nreason:\n{result.reason or '(none)'}"
        )
    return result


async def aassert_score(
    scorer: Scorer,
    *,
    min_score: float | None = None,
    max_score: float | None = None,
    allow_skipped: bool = False,
    **run_fields: Any,
) -> ScoreResult:
    """Async `assert_score`."""
    __tracebackhide__ = True
    run = ScorerRun(**run_fields)
    return _check(await scorer.arun(run), run, min_score, max_score, allow_skipped)


def assert_score(
    scorer: Scorer,
    *,
    min_score: float | None = None,
    max_score: float | None = None,
    allow_skipped: bool = False,
    **run_fields: Any,
) -> ScoreResult:
    """Score one run and assert the score, in any test suite.

    Example:
        ```python
        def test_retriever_finds_the_birthplace():
            chunks = my_retriever("Where was Einstein born?")
            assert_score(recall, min_score=0.8, ground_truth="Einstein was born in Ulm.",
                         context=chunks)
        ```

    The failure message holds the score, the bound and the scorer's reason (the
    missing claims, the chunks judged not useful). Every call is recorded for scorekit's
    pytest plugin, which prints a table of the session's scores at the end (and, with
    ``--scorekit-results PATH``, writes them as a results file for ``scorekit report``).

    Args:
        scorer: Any `Scorer`.
        min_score: Fail below this (``scale`` units).
        max_score: Fail above this.
        allow_skipped: Accept ``status="skipped"`` (no ground truth, say) instead of
            failing.
        **run_fields: The `ScorerRun` fields: ``input``, ``output``, ``ground_truth``,
            ``context``, ``reference_contexts``, ``reference_context_ids``, ...

    Returns:
        The `ScoreResult`, when the assertion holds.

    Raises:
        AssertionError: When it does not, or the scorer failed.
    """
    __tracebackhide__ = True
    run = ScorerRun(**run_fields)
    return _check(run_sync(scorer.arun, run), run, min_score, max_score, allow_skipped)
