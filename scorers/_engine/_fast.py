"""Fast paths: plug-ins registered per prebuilt scorer, and blocks scored with them.

A prebuilt factory calls `with_fast_path(scorer, options)`; when a plug-in is registered
under the scorer's id and accepts the options, the returned scorer carries it. The
engine then scores blocks of ready runs with it (`score_block`) and leaves every run the
plug-in declines to the scorer's steps. A plug-in must give exactly the steps' results:
one contract test checks every registered plug-in against them.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from .._registries import Registry
from .._types import ScoreResult, ScorerRun
from ._spec import FastPath, Memo, Outcome, ScorerSpec

FastPathFactory = Callable[[Any], "FastPath | None"]
"""``factory(options) -> plug-in``, or None when these options have no fast path."""

_REGISTRY: Registry[FastPathFactory] = Registry("fast_paths", "fast path")

S = TypeVar("S", bound=ScorerSpec)


def register_fast_path(
    scorer_id: str, *, override: bool = False
) -> Callable[[FastPathFactory], FastPathFactory]:
    """Register the decorated ``factory(options)`` as the fast path of ``scorer_id``
    (``override=True`` to replace scorekit's own plug-in of a built-in scorer)."""

    def register(factory: FastPathFactory) -> FastPathFactory:
        return _REGISTRY.add(scorer_id, factory, replace=True, override=override)

    return register


def registered_fast_paths() -> dict[str, FastPathFactory]:
    """Every registered fast-path factory by scorer id (for the contract test)."""
    return dict(_REGISTRY.load())


def with_fast_path(scorer: S, options: Any, family: str | None = None) -> S:
    """``scorer`` carrying the fast path registered under its id (or ``family``, for
    scorers whose id varies, e.g. ``"ranking"``), if one is and it takes ``options``;
    else ``scorer`` itself. Any builder method drops it again (a changed pipeline no
    longer matches the plug-in)."""
    factory = _REGISTRY.load().get(family or scorer.id)
    plugin = None if factory is None else factory(options)
    if plugin is None:
        return scorer
    clone = copy.copy(scorer)
    clone._fast_path = plugin
    return clone


def has_fast_path(scorer: ScorerSpec) -> bool:
    """Whether ``scorer`` carries a fast path."""
    return scorer._fast_path is not None


def block_outcomes(
    scorers: Mapping[str, ScorerSpec], runs: Sequence[ScorerRun]
) -> tuple[list[dict[str, Outcome]], dict[str, float]]:
    """Per run, the outcomes the scorers' fast paths give (by scorer key), and each
    plug-in's time per run. A run a plug-in declines, or every run of a plug-in that
    raises, is left out: the scorer's steps score it afterwards and record any error item
    by item."""
    found: list[dict[str, Outcome]] = [{} for _ in runs]
    seconds: dict[str, float] = {}
    memo: Memo = {}
    for key, scorer in scorers.items():
        plugin = scorer._fast_path
        if plugin is None or not runs:
            continue
        started = time.perf_counter()
        try:
            outcomes = plugin.score(runs, memo)
        except Exception:
            continue
        seconds[key] = (time.perf_counter() - started) / len(runs)
        for slot, outcome in zip(found, outcomes, strict=True):
            if outcome is not None:
                slot[key] = outcome
    return found, seconds


def as_results(
    scorers: Mapping[str, ScorerSpec], found: Mapping[str, Outcome], seconds: Mapping[str, float]
) -> dict[str, ScoreResult]:
    """One run's outcomes as `ScoreResult`s, by key, each with details of its own."""
    return {
        key: ScoreResult(
            scorer_id=scorers[key].id,
            score=score,
            reason=reason,
            details={name: _copied(value) for name, value in details.items()},
            duration_s=seconds[key],
        )
        for key, (score, reason, details) in found.items()
    }


def _copied(value: Any) -> Any:
    """A result's own copy of a details entry plug-ins may share between scorers: its
    lists and dicts one level down copied (arrays shared, as a step's are)."""
    if type(value) is dict:
        return {k: v.copy() if type(v) is list or type(v) is dict else v for k, v in value.items()}
    return value


def score_block(
    scorers: Mapping[str, ScorerSpec], runs: Sequence[ScorerRun]
) -> list[dict[str, ScoreResult]]:
    """Per run, the results the scorers' fast paths give (by scorer key); see
    `block_outcomes`."""
    found, seconds = block_outcomes(scorers, runs)
    return [as_results(scorers, outcomes, seconds) for outcomes in found]
