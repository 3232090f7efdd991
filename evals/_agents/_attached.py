"""Scorers attached to an agent: sampled, run in the background after each answer,
stored and reported. `evals.Agent` and `scored()` share it."""

from __future__ import annotations

import inspect
import random
import sys
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from scorers import ConfigError, Scorer, ScorerRun, framework_answer
from scorers._internal import Job, Scored, current_span

from .._keyed import scorer_map
from ._live import LiveScoring
from ._store import InMemoryScoreStore, ScoreRecord, ScoreStore

OnScore = Callable[[ScoreRecord], "Awaitable[None] | None"]


class Sampling(BaseModel):
    """How often an attached scorer runs: ``{"type": "ratio", "rate": 0.25}``."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["ratio", "none"] = "ratio"
    rate: float = Field(default=1.0, ge=0.0, le=1.0)


class Attachment(BaseModel):
    """One attached scorer and its sampling."""

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    scorer: Scorer
    sampling: Sampling = Field(default_factory=Sampling)


def attachments(
    scorers: Mapping[str, Any] | Sequence[Scorer] | None, sampling: Any = None
) -> dict[str, Attachment]:
    """``{key: Attachment}`` from a mapping (``{key: scorer}`` or ``{key: {"scorer": s,
    "sampling": {...}}}``) or a list of scorers keyed by id; ``sampling`` is the default.

    Raises:
        ConfigError: For a value that is neither, or a bad sampling.
    """
    keyed: Mapping[str, Any] = {}
    if isinstance(scorers, Mapping):
        keyed = scorers
    elif scorers:  # a list: keyed by each scorer's id
        keyed = scorer_map(scorers)
    found = {}
    for key, value in keyed.items():
        try:
            if isinstance(value, Scorer):
                value = (
                    {"scorer": value}
                    if sampling is None
                    else {"scorer": value, "sampling": sampling}
                )
            found[key] = Attachment.model_validate(value)
        except ValidationError as exc:
            raise ConfigError(
                f"scorer {key!r}: expected a Scorer or {{'scorer': s, 'sampling': "
                f"{{'type': 'ratio', 'rate': r}}}}: {exc}"
            ) from None
    return found


class _Answer(NamedTuple):
    """What a live job scores: one call of the agent."""

    input: Any
    output: Any
    run_id: str


class AttachedScorers:
    """Sampled background scoring of an agent's answers, with a store and a callback."""

    def __init__(
        self,
        name: str,
        scorers: dict[str, Attachment],
        on_score: OnScore | None,
        score_store: ScoreStore | None,
    ):
        self.name = name
        self.scorers = scorers
        self.on_score = on_score
        self.score_store: ScoreStore = score_store or InMemoryScoreStore()
        self.live = LiveScoring({key: a.scorer for key, a in scorers.items()}, self._keep)
        self.random = random.Random()

    def start(self, input: Any, output: Any) -> None:
        """Submit the sampled scorers of one answer (on the running event loop)."""
        sampled = [
            key
            for key, attachment in self.scorers.items()
            if attachment.sampling.type != "none"
            and self.random.random() < attachment.sampling.rate
        ]
        if sampled:
            answer = _Answer(input, output, f"{self.name}-{time.time_ns()}")
            run = ScorerRun(input=input, output=output, run_id=answer.run_id)
            # the caller's span: the call scored, where its scores are recorded
            self.live.submit(Job(answer, run, only=sampled, evaluated=current_span()))

    async def _keep(self, scored: Scored) -> None:
        """Store each score of a finished job and report it; a failure here is printed
        (a background service has nobody to raise to) and never stops the others."""
        answer: _Answer = scored.job.key
        text = getattr(answer.output, "text", None)
        if not isinstance(text, str):
            text = framework_answer(answer.output)
        for key, result in scored.results.items():
            try:
                record = ScoreRecord(
                    agent=self.name,
                    scorer_key=key,
                    scorer_id=result.scorer_id,
                    run_id=answer.run_id,
                    input=answer.input,
                    output=str(answer.output) if text is None else text,
                    score=result.score,
                    reason=result.reason,
                    status=result.status,
                    error=result.error,
                )
            except ValueError as exc:  # a bug of ours: said, and the service goes on
                print(f"scorekit: live score of {key!r} not recorded: {exc}", file=sys.stderr)
                continue
            await _report("store", self.score_store.save, record)
            if self.on_score is not None:
                await _report("on_score callback", self.on_score, record)


async def _report(what: str, fn: Callable[[ScoreRecord], Any], record: ScoreRecord) -> None:
    try:
        outcome = fn(record)
        if inspect.isawaitable(outcome):
            await outcome
    except Exception as exc:
        print(f"scorekit: live score's {what} failed: {exc!r}", file=sys.stderr)
