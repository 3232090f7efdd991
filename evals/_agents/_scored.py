"""`scored`: live scoring for any agent — a sync or async callable — as `evals.Agent` has."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from scorers import ConfigError, Scorer
from scorers._internal import run_sync

from ._attached import AttachedScorers, OnScore, attachments
from ._store import ScoreStore


class ScoredAgent:
    """A callable wrapped by `scored`: it returns the agent's own result unchanged and
    starts the attached scorers in the background after each call.

    Attributes:
        score_store: Where the scores go (`ScoreRecord`s).
        scorers: The attached scorers and their sampling, by key.
    """

    def __init__(self, fn: Callable[..., Any], attached: AttachedScorers):
        self._fn = fn
        self._attached = attached
        self.score_store = attached.score_store
        self.scorers = attached.scorers
        self._is_async = inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(
            getattr(fn, "__call__", None)  # noqa: B004
        )
        functools.update_wrapper(self, fn)  # type: ignore[arg-type]

    def __call__(self, input: Any, *args: Any, **kwargs: Any) -> Any:
        if self._is_async:
            return self._acall(input, *args, **kwargs)
        output = self._fn(input, *args, **kwargs)
        run_sync(self._astart, input, output)  # background work on scorekit's loop
        return output

    async def _acall(self, input: Any, *args: Any, **kwargs: Any) -> Any:
        output = await self._fn(input, *args, **kwargs)
        self._attached.start(input, output)  # on the caller's loop; never awaited here
        return output

    async def _astart(self, input: Any, output: Any) -> None:
        self._attached.start(input, output)

    async def aflush_scores(self) -> None:
        """Wait until every scorer started so far (on this event loop) has finished."""
        await self._attached.live.flush()

    def flush_scores(self) -> None:
        """Wait for the scorers of synchronous calls (they run on scorekit's loop)."""
        run_sync(self.aflush_scores)

    async def aclose(self) -> None:
        """Wait for the scorers, then end their service on this event loop."""
        await self._attached.live.close()

    def close(self) -> None:
        """Synchronous `aclose`."""
        run_sync(self.aclose)


def scored(
    fn: Callable[..., Any] | None = None,
    *,
    scorers: Mapping[str, Any] | Sequence[Scorer],
    sampling: Mapping[str, Any] | None = None,
    on_score: OnScore | None = None,
    score_store: ScoreStore | None = None,
    name: str | None = None,
) -> Any:
    """Attach live scorers to any agent: a sync or async callable ``input -> result``.

    The wrapper returns the agent's result unchanged and at once; the sampled scorers
    then run in the background on ``ScorerRun(input=input, output=result)`` — exactly as
    `evals.Agent`'s do — and each `ScoreRecord` lands in ``score_store`` and reaches
    ``on_score``. Give the scorers ``{"context_extractor": "auto"}`` to read the chunks
    out of a LangChain, LlamaIndex, Haystack, OpenAI or PydanticAI result.

    Example:
        ```python
        @scored(scorers=[utilization], sampling={"type": "ratio", "rate": 0.1})
        def answer(question: str) -> dict: ...
        ```

    Args:
        fn: The agent (or leave it out to use ``scored(...)`` as a decorator).
        scorers: ``{key: scorer}``, ``{key: {"scorer": s, "sampling": {...}}}`` or a list
            of scorers keyed by their ids.
        sampling: The default sampling of scorers given bare (``{"type": "ratio",
            "rate": r}``; every call when None).
        on_score: Called with each `ScoreRecord` (sync or async; its errors are printed,
            never raised).
        score_store: Where records go (in memory by default, or a `SqliteScoreStore`).
        name: The agent's name in the records (default: the function's name).

    Returns:
        A `ScoredAgent` (or a decorator making one).

    Raises:
        ConfigError: For no scorers, or a bad scorer or sampling.
    """
    found = attachments(scorers, sampling)
    if not found:
        raise ConfigError("scored() needs at least one scorer")

    def wrap(agent: Callable[..., Any]) -> ScoredAgent:
        if not callable(agent):
            raise ConfigError(f"scored() wraps a callable, got {type(agent).__name__}")
        label = name or str(getattr(agent, "__name__", None) or type(agent).__name__)
        return ScoredAgent(agent, AttachedScorers(label, found, on_score, score_store))

    return wrap if fn is None else wrap(fn)
