"""`Agent`: a litellm tool-calling loop with scorers attached that run in the background."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import anyio

from scorers import (
    AgentOutput,
    Completion,
    ConfigError,
    Judge,
    JudgeCall,
    Scorer,
    ToolCall,
    final_text,
)
from scorers._internal import run_sync

from ._attached import AttachedScorers, OnScore, attachments
from ._store import ScoreStore
from ._tools import Tool

# --- tools ------------------------------------------------------------------------------


def _assistant_message(completion: Completion) -> dict[str, Any]:
    """The model's answer as an OpenAI-format assistant message."""
    message: dict[str, Any] = {"role": "assistant", "content": completion.content}
    if completion.tool_calls:
        message["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in completion.tool_calls
        ]
    return message


class Agent:
    """An LLM agent: a tool-calling loop through litellm, with live scorers.

    Args:
        name: The agent's name (recorded with its scores).
        model: A litellm model string or a `scorers.Judge` (its retries, limiter and
            ``api_base`` are used; agent calls are never cached).
        instructions: The system prompt.
        tools: Python functions the model may call.
        scorers: ``{key: {"scorer": s, "sampling": {"type": "ratio", "rate": r}}}`` (or
            ``{key: s}``, or a list of scorers keyed by their ids, for every response);
            they run in the background after a response.
        on_score: Called with each `ScoreRecord` (sync or async).
        score_store: Where scores are kept; in memory by default, or a `SqliteScoreStore`.
        max_steps: Model calls allowed per generation before the loop is cut off.
        api_base: With a model string: an OpenAI-compatible server's base URL.
        api_key: With a model string: the API key.
    """

    def __init__(
        self,
        name: str,
        model: str | Judge,
        instructions: str = "",
        tools: Sequence[Callable[..., Any]] = (),
        scorers: Mapping[str, Any] | Sequence[Scorer] | None = None,
        on_score: OnScore | None = None,
        score_store: ScoreStore | None = None,
        max_steps: int = 8,
        api_base: str | None = None,
        api_key: str | None = None,
    ):
        if max_steps < 1:
            raise ConfigError("max_steps must be at least 1")
        self.name = name
        self.judge = (
            model
            if isinstance(model, Judge)
            else Judge(model, api_base=api_base, api_key=api_key, cache=False)
        )
        self.instructions = instructions
        self.tools = {tool.name: tool for tool in (Tool(fn) for fn in tools)}
        self._attached = AttachedScorers(name, attachments(scorers), on_score, score_store)
        self.scorers = self._attached.scorers
        self.on_score = on_score
        self.score_store: ScoreStore = self._attached.score_store
        self.max_steps = max_steps
        self._live = self._attached.live

    def __repr__(self) -> str:
        return f"Agent(name={self.name!r}, model={self.judge.model!r}, tools={list(self.tools)})"

    async def agenerate(
        self, input: str | list[dict[str, Any]], *, run_scorers: bool = True
    ) -> AgentOutput:
        """Answer ``input`` (a question or a message history), calling tools as needed.

        Attached scorers are started in the background afterwards (sampled) and do not
        delay the answer; `aflush_scores` waits for them.
        """
        messages: list[dict[str, Any]] = []
        if self.instructions:
            messages.append({"role": "system", "content": self.instructions})
        if isinstance(input, str):
            messages.append({"role": "user", "content": input})
        else:
            messages.extend(dict(m) for m in input)
        schemas = [tool.schema() for tool in self.tools.values()]
        calls: list[JudgeCall] = []
        finish = "max_steps"
        for _ in range(self.max_steps):
            extra = {"tools": schemas} if schemas else {}
            completion, call = await self.judge.chat(messages, step=f"agent:{self.name}", **extra)
            calls.append(call)
            messages.append(_assistant_message(completion))
            if not completion.tool_calls:
                finish = "stop"
                break
            messages.extend(await self._run_tools(completion.tool_calls))
        output = AgentOutput(
            text=final_text(messages),
            messages=messages,
            usage={
                "prompt_tokens": sum(c.prompt_tokens for c in calls),
                "completion_tokens": sum(c.completion_tokens for c in calls),
            },
            steps=len(calls),
            finish_reason=finish,
            calls=calls,
        )
        if run_scorers and self.scorers:
            self._start_scorers(input, output)
        return output

    async def _run_tools(self, tool_calls: list[ToolCall]) -> list[dict[str, Any]]:
        """Run the model's tool calls concurrently; their results as ``tool`` messages.

        Tool errors (and unknown tools) are answers for the model, not exceptions.
        """
        answers: list[str] = [""] * len(tool_calls)

        async def run_tool(i: int, call: ToolCall) -> None:
            tool = self.tools.get(call.name)
            answers[i] = (
                await tool.call(call.arguments)
                if tool is not None
                else json.dumps({"error": f"unknown tool {call.name!r}; tools: {list(self.tools)}"})
            )

        async with anyio.create_task_group() as tg:  # a tool's error is its answer
            for i, call in enumerate(tool_calls):
                tg.start_soon(run_tool, i, call)
        return [
            {"role": "tool", "tool_call_id": call.id, "name": call.name, "content": answer}
            for call, answer in zip(tool_calls, answers, strict=True)
        ]

    def generate(
        self, input: str | list[dict[str, Any]], *, run_scorers: bool = True
    ) -> AgentOutput:
        """Synchronous `agenerate`; live scorers keep running after it returns."""

        return run_sync(self.agenerate, input, run_scorers=run_scorers)

    def _start_scorers(self, input: Any, output: AgentOutput) -> None:
        self._attached.start(input, output)

    async def aflush_scores(self) -> None:
        """Wait until every live scorer started so far has finished."""
        await self._live.flush()

    def flush_scores(self) -> None:
        """Synchronous `aflush_scores` (for agents used through `generate`)."""
        run_sync(self.aflush_scores)

    async def aclose(self) -> None:
        """Wait for the live scorers, then end their service on this event loop."""
        await self._live.close()

    def close(self) -> None:
        """Synchronous `aclose`."""
        run_sync(self.aclose)
