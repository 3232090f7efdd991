"""The engine's units of work: a `Job` in, a `Scored` out, and the `Rules` of a run."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from .._types import JudgeCall, ScoreResult, ScorerRun
from ._spec import Outcome


@dataclass
class Job:
    """One item's scoring work.

    Attributes:
        key: The caller's handle for the item, handed back in `Scored`; the engine never
            looks inside it.
        run: The validated run to score; or None, with ``prepare``.
        prepare: ``async () -> (run, outcome)``: makes the run first (a target call); a
            None run means there is nothing to score. ``outcome`` is the caller's (what
            the target returned, how it failed) and comes back as `Scored.prepared`.
            Its time counts against the timeout and its model calls are in
            `Scored.calls`.
        only: Keys of the scorers to run (None: all of them).
        label: The item's name in traces (``scorekit.item.id``); None: none.
        evaluated: The trace span of the call the job scores (an agent's request, which
            may have ended): the scores' spans go under it and their results on it, and
            no item span is opened. None: an item span under the run's.
    """

    key: Any
    run: ScorerRun | None = None
    prepare: Callable[[], Awaitable[tuple[ScorerRun | None, Any]]] | None = None
    only: Collection[str] | None = None
    label: str | int | None = None
    evaluated: Any = None


@dataclass
class Scored:
    """A finished job.

    Attributes:
        job: The job.
        results: Each scorer's result by key, in the scorers' order.
        calls: Every model call the job made (``prepare``'s included), answered, failed
            or cut off.
        prepare_calls: The model calls ``prepare`` made.
        timed_out: Whether the timeout cut the job short (``results`` has what finished).
        duration_s: Wall time of the job.
        prepared: The outcome ``prepare`` returned (None without one, or when the
            timeout cut it short).
    """

    job: Job
    results: dict[str, ScoreResult]
    calls: list[JudgeCall] = field(default_factory=list)
    prepare_calls: list[JudgeCall] = field(default_factory=list)
    timed_out: bool = False
    duration_s: float = 0.0
    prepared: Any = None


@dataclass
class ScoredBlock:
    """A block of jobs the fast paths scored together, as plain outcomes: what a caller
    that writes many model-free items at once takes (`score_many`'s ``on_block``)
    instead of a `Scored` per job.

    Attributes:
        jobs: The block's jobs, in order.
        found: Per job, every scorer's `Outcome` by key (in the scorers' order); or the
            job's `Scored` when the steps scored some of it, or it timed out.
        seconds: Each scorer's fast-path time per run of the block, by key (a result's
            ``duration_s``; a job's is their sum).
    """

    jobs: Sequence[Job]
    found: list[dict[str, Outcome] | Scored]
    seconds: dict[str, float]


OnScored = Callable[[Scored], Awaitable[None]]
OnBlock = Callable[[ScoredBlock], Awaitable[None]]
SetupErrors = Literal["raise", "record"]


@dataclass(frozen=True)
class Rules:
    """What a timeout and a failure do, the same for every job of one run (`score_many`'s
    ``timeout``, ``raise_errors`` and ``setup_errors``)."""

    timeout: float | None
    raise_errors: bool
    setup_errors: SetupErrors
