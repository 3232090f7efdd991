"""Targets: what `run_evals` calls per item (an `Agent`, a function, or nothing)."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import anyio
from pydantic import BaseModel, ConfigDict, model_validator

from scorers import (
    ConfigError,
    ContextList,
    RetrievedIds,
    UnreadableOutputError,
    is_agent_shaped,
    read_result,
)
from scorers._internal import ONE_RETRIEVAL

from .._results import TargetResult


class TargetOutput(BaseModel):
    """What a target may return when it also knows the retrieved context.

    A target may instead return a dict with the same keys, an `AgentOutput`, or any
    other value (taken as the output).

    Attributes:
        output: The response.
        context: The retrieved chunks, in rank order.
        retrieved_context_ids: Or what was retrieved as ids only, in rank order (a list,
            or a dict id -> retrieval score): the ID and ranking scorers read it, text
            scorers skip the item.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    output: Any = None
    context: ContextList = None
    retrieved_context_ids: RetrievedIds = None

    @model_validator(mode="after")
    def _one_retrieval(self) -> TargetOutput:
        if self.context is not None and self.retrieved_context_ids is not None:
            raise ValueError(ONE_RETRIEVAL)
        return self


def as_target_result(value: Any) -> TargetResult:
    """What a target returned, read once: its answer and the chunks it retrieved.

    `TargetOutput`, ``{"output", "context"}``, LangChain's retrieval-chain and RetrievalQA
    outputs, framework objects and chunk lists give both (`scorers.read_result`); a
    message history or `AgentOutput` stays whole, for the scorers' context extractors;
    anything else is the output, with no retrieved context (the item's own ``context``
    is never used in its place). A retrieval without an answer (``{"context": [...]}``, a
    list of chunks) has no output: scorers that need an answer skip the item.

    Raises:
        UnreadableOutputError: When a recognised shape fails to read, or the value is
            None, a number, a bool or bytes (the item's error, naming the type).
    """
    if isinstance(value, TargetOutput):
        return TargetResult(
            output=value.output,
            context=value.context,
            retrieved_context_ids=value.retrieved_context_ids,
        )
    if isinstance(value, Mapping) and "retrieved_context_ids" in value:
        # the rest is read as any other dict ({"answer": ...} kept whole, as without ids)
        rest = {k: v for k, v in value.items() if k != "retrieved_context_ids"}
        read = as_target_result(rest) if rest else TargetResult()
        found = TargetOutput(
            output=read.output,
            context=read.context,
            retrieved_context_ids=value["retrieved_context_ids"],
        )
        return as_target_result(found)
    if isinstance(value, str) or is_agent_shaped(value):
        return TargetResult(output=value)
    if value is None or isinstance(value, (bool, int, float, bytes)):
        raise UnreadableOutputError(
            f"the target returned {type(value).__name__} {value!r:.60}, which is neither an "
            "answer nor a retrieval; return the answer (a string), {'output': answer, "
            "'context': [chunks]}, a list of chunks or a message history"
        )
    reading = read_result(value)
    if reading is None:
        return TargetResult(output=value)
    return TargetResult(output=reading.answer, context=reading.chunks)


def target_identity(target: Any) -> str:
    """What a results file records of a target: ``module:name`` of a function or a
    callable's class, ``Agent 'name'`` for an `Agent`, "" for none."""
    if target is None:
        return ""
    from .._agents._agent import Agent

    if isinstance(target, Agent):
        return f"Agent {target.name!r}"
    named = target if hasattr(target, "__qualname__") else type(target)
    return f"{getattr(named, '__module__', None) or '?'}:{named.__qualname__}"


def target_caller(target: Any) -> Callable[[Any], Awaitable[Any]] | None:
    """An async ``input -> value`` for any kind of target."""
    if target is None:
        return None
    from .._agents._agent import Agent

    if isinstance(target, Agent):

        async def call_agent(value: Any) -> Any:
            return await target.agenerate(value, run_scorers=False)

        return call_agent
    for asynchronous, synchronous in (("ainvoke", "invoke"), ("aquery", "query")):
        # a LangChain Runnable (or LangGraph graph), a LlamaIndex query engine
        if callable(getattr(target, asynchronous, None)):
            return _awaiting(getattr(target, asynchronous))
        if callable(getattr(target, synchronous, None)) and not callable(target):
            return _in_thread(getattr(target, synchronous))
    if callable(getattr(target, "inputs", None)) and callable(getattr(target, "run", None)):
        return _in_thread(_haystack_call(target))  # a Haystack Pipeline
    if not callable(target):
        raise ConfigError(
            "target must be an Agent, a callable, a LangChain Runnable, a LlamaIndex query "
            f"engine or a Haystack Pipeline, got {type(target).__name__}"
        )
    if inspect.iscoroutinefunction(target) or inspect.iscoroutinefunction(
        getattr(target, "__call__", None)  # noqa: B004
    ):

        async def call_async(value: Any) -> Any:
            return await target(value)

        return call_async

    return _in_thread(target)


QUESTION_SOCKETS = ("query", "question", "text", "prompt")
"""A Haystack pipeline's inputs that receive the item's question."""


def _haystack_call(pipeline: Any) -> Callable[[Any], Any]:
    """``question -> pipeline.run(...)``, the question given to every open input named
    like a question (`QUESTION_SOCKETS`)."""
    sockets = {
        component: [name for name in inputs if name in QUESTION_SOCKETS]
        for component, inputs in pipeline.inputs().items()
    }
    if not any(sockets.values()):
        raise ConfigError(
            "the Haystack pipeline has no input named query, question, text or prompt; "
            "pass target=lambda q: pipeline.run({...}) with its inputs"
        )

    def call(question: Any) -> Any:
        return pipeline.run(
            {c: {name: question for name in names} for c, names in sockets.items() if names}
        )

    return call


def _awaiting(method: Callable[[Any], Awaitable[Any]]) -> Callable[[Any], Awaitable[Any]]:
    async def call_method(value: Any) -> Any:
        return await method(value)

    return call_method


def _in_thread(fn: Callable[[Any], Any]) -> Callable[[Any], Awaitable[Any]]:
    async def call_sync(value: Any) -> Any:
        outcome = await anyio.to_thread.run_sync(fn, value)
        if inspect.isawaitable(outcome):
            outcome = await outcome
        return outcome

    return call_sync
