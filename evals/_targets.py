"""Targets: what `run_evals` calls per item (an `Agent`, a function, or nothing)."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import anyio
from pydantic import BaseModel, ConfigDict

from scorers import Chunk, ConfigError
from scorers._runtime import to_chunks

from ._results import TargetResult


class TargetOutput(BaseModel):
    """What a target may return when it also knows the retrieved context.

    A target may instead return a dict with the same keys, an `AgentOutput`, or any
    other value (taken as the output).

    Attributes:
        output: The response.
        context: The retrieved chunks, in rank order.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    output: Any = None
    context: list[Chunk] | None = None


def as_target_result(value: Any) -> TargetResult:
    if isinstance(value, TargetOutput):
        return TargetResult(output=value.output, context=value.context)
    if isinstance(value, Mapping) and "output" in value and set(value) <= {"output", "context"}:
        context = value.get("context")
        return TargetResult(
            output=value["output"], context=None if context is None else to_chunks(context)
        )
    return TargetResult(output=value)


def target_caller(target: Any) -> Callable[[Any], Awaitable[Any]] | None:
    """An async ``input -> value`` for any kind of target."""
    if target is None:
        return None
    from ._agents._agent import Agent

    if isinstance(target, Agent):

        async def call_agent(value: Any) -> Any:
            return await target.agenerate(value, run_scorers=False)

        return call_agent
    if not callable(target):
        raise ConfigError(f"target must be an Agent or a callable, got {type(target).__name__}")
    if inspect.iscoroutinefunction(target) or inspect.iscoroutinefunction(
        getattr(target, "__call__", None)  # noqa: B004
    ):

        async def call_async(value: Any) -> Any:
            return await target(value)

        return call_async

    async def call_sync(value: Any) -> Any:
        outcome = await anyio.to_thread.run_sync(target, value)
        if inspect.isawaitable(outcome):
            outcome = await outcome
        return outcome

    return call_sync
