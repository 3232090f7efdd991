"""Scorers attached to an agent: sampled, run in the background after each answer,
stored and reported. `evals.Agent` and `scored()` share it."""

from __future__ import annotations

import contextvars
import inspect
import random
import sys
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from scorers import ConfigError, Scorer, ScorerRun, framework_answer
from scorers.lowlevel import score_detached

from .._options import scorer_map
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
        self.live = LiveScoring()
        self.random = random.Random()

    def start(self, input: Any, output: Any) -> None:
        """Submit the sampled scorers of one answer (on the running event loop)."""
        run_id = f"{self.name}-{time.time_ns()}"
        for key, attachment in self.scorers.items():
            sampling = attachment.sampling
            if sampling.type == "none" or self.random.random() >= sampling.rate:
                continue
            caller = contextvars.copy_context()  # its trace span gets the score
            self.live.submit(self._score, key, attachment.scorer, input, output, run_id, caller)

    async def _score(
        self,
        key: str,
        scorer: Scorer,
        input: Any,
        output: Any,
        run_id: str,
        caller: contextvars.Context,
    ) -> None:
        # runs after the caller's answer: its calls are not the caller's
        run = ScorerRun(input=input, output=output, run_id=run_id)
        result = await score_detached(scorer, run, caller)
        text = getattr(output, "text", None)
        if not isinstance(text, str):
            text = framework_answer(output)
        record = ScoreRecord(
            agent=self.name,
            scorer_key=key,
            scorer_id=scorer.id,
            run_id=run_id,
            input=input,
            output=str(output) if text is None else text,
            score=result.score,
            reason=result.reason,
            status=result.status,
            error=result.error,
        )
        self.score_store.save(record)
        if self.on_score is not None:
            try:
                outcome = self.on_score(record)
                if inspect.isawaitable(outcome):
                    await outcome
            except Exception as exc:  # a background callback has nobody to raise to
                print(f"scorekit: on_score callback failed: {exc!r}", file=sys.stderr)
