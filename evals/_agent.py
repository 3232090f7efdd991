"""`Agent`: a litellm tool-calling loop with scorers attached that run in the background."""

from __future__ import annotations

import asyncio
import inspect
import json
import random
import re
import sqlite3
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, Protocol

import anyio
from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from scorers import AgentOutput, ConfigError, Judge, JudgeCall, Scorer, ScorerRun, final_text
from scorers._runtime import detached_calls, run_sync, task_group


class ScoreRecord(BaseModel):
    """One live score of an agent response.

    Attributes:
        agent: The agent's name.
        scorer_key: The key the scorer was attached under.
        scorer_id: The scorer's id.
        run_id: Identifies the generation (shared by every scorer of one response).
        input: What the agent was asked.
        output: The agent's final text.
        score: The score (0 on skip or error).
        reason: The scorer's reason.
        status: ``"scored"``, ``"skipped"`` or ``"error"``.
        error: The error message, if any.
        created_at: Unix time.
    """

    agent: str
    scorer_key: str
    scorer_id: str
    run_id: str
    input: Any = None
    output: str = ""
    score: float = 0.0
    reason: str = ""
    status: str = "scored"
    error: str | None = None
    created_at: float = Field(default_factory=time.time)


class ScoreStore(Protocol):
    """Where live scores go: anything with ``save`` and ``list``."""

    def save(self, record: ScoreRecord) -> None: ...

    def list(
        self, *, agent: str | None = None, scorer_key: str | None = None
    ) -> list[ScoreRecord]: ...


class InMemoryScoreStore:
    """Keeps live scores in a list (the default)."""

    def __init__(self) -> None:
        self._records: list[ScoreRecord] = []
        self._lock = threading.Lock()

    def save(self, record: ScoreRecord) -> None:
        with self._lock:
            self._records.append(record)

    def list(self, *, agent: str | None = None, scorer_key: str | None = None) -> list[ScoreRecord]:
        with self._lock:
            return [
                r
                for r in self._records
                if (agent is None or r.agent == agent)
                and (scorer_key is None or r.scorer_key == scorer_key)
            ]


class SqliteScoreStore:
    """Keeps live scores in a sqlite3 file, one row per score.

    Args:
        path: The database file (created with its folder).
    """

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(str(self.path), check_same_thread=False)
        with self._lock:
            self._conn.execute(
                "CREATE TABLE IF NOT EXISTS scores (agent TEXT, scorer_key TEXT, created_at REAL, "
                "record TEXT)"
            )
            self._conn.commit()

    def save(self, record: ScoreRecord) -> None:
        with self._lock:
            self._conn.execute(
                "INSERT INTO scores VALUES (?, ?, ?, ?)",
                (record.agent, record.scorer_key, record.created_at, record.model_dump_json()),
            )
            self._conn.commit()

    def list(self, *, agent: str | None = None, scorer_key: str | None = None) -> list[ScoreRecord]:
        query = "SELECT record FROM scores WHERE (? IS NULL OR agent = ?) AND (? IS NULL OR scorer_key = ?) ORDER BY rowid"
        with self._lock:
            rows = self._conn.execute(query, (agent, agent, scorer_key, scorer_key)).fetchall()
        return [ScoreRecord.model_validate_json(row[0]) for row in rows]


class Sampling(BaseModel):
    """How often an attached scorer runs: ``{"type": "ratio", "rate": 0.25}``."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["ratio", "none"] = "ratio"
    rate: float = Field(default=1.0, ge=0.0, le=1.0)


class _Attachment(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    scorer: Scorer
    sampling: Sampling = Field(default_factory=Sampling)


# --- tools ------------------------------------------------------------------------------


def _arg_docs(doc: str) -> dict[str, str]:
    """Parameter descriptions from a Google-style ``Args:`` section."""
    match = re.search(r"^\s*Args:\s*$(.*?)(^\s*\w+:\s*$|\Z)", doc, re.M | re.S)
    if not match:
        return {}
    found: dict[str, str] = {}
    for line in match.group(1).splitlines():
        item = re.match(r"\s+(\w+)(?:\s*\(.*?\))?:\s*(.+)", line)
        if item:
            found[item.group(1)] = item.group(2).strip()
    return found


class Tool:
    """A Python function exposed to the model; its hints and docstring are the schema.

    Args:
        fn: A sync or async function with type-hinted parameters.
    """

    def __init__(self, fn: Callable[..., Any]):
        if not callable(fn):
            raise ConfigError(f"a tool must be a function, got {type(fn).__name__}")
        self.fn = fn
        self.name = getattr(fn, "__name__", "tool")
        doc = inspect.getdoc(fn) or ""
        self.description = doc.split("\n\n")[0].strip() or self.name
        descriptions = _arg_docs(doc)
        fields: dict[str, Any] = {}
        hints = inspect.get_annotations(fn, eval_str=True) if inspect.isfunction(fn) else {}
        for param in inspect.signature(fn).parameters.values():
            if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
                continue
            annotation = hints.get(param.name, Any)
            default = ... if param.default is param.empty else param.default
            fields[param.name] = (
                annotation,
                Field(default, description=descriptions.get(param.name)),
            )
        self.arguments_model: type[BaseModel] = create_model(f"{self.name}_arguments", **fields)

    def schema(self) -> dict[str, Any]:
        """The OpenAI ``tools`` entry."""
        parameters = self.arguments_model.model_json_schema()
        parameters.pop("title", None)
        for prop in parameters.get("properties", {}).values():
            prop.pop("title", None)
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": parameters,
            },
        }

    async def call(self, arguments: str | None) -> str:
        """Run the tool on the model's JSON arguments; errors come back as text."""
        try:
            raw = json.loads(arguments or "{}")
            parsed = self.arguments_model.model_validate(raw)
        except (ValueError, ValidationError) as exc:
            return json.dumps({"error": f"invalid arguments for {self.name}: {exc}"})
        kwargs = {name: getattr(parsed, name) for name in type(parsed).model_fields}
        try:
            if inspect.iscoroutinefunction(self.fn):
                value = await self.fn(**kwargs)
            else:
                value = await anyio.to_thread.run_sync(lambda: self.fn(**kwargs))
        except Exception as exc:
            return json.dumps({"error": f"{type(exc).__name__}: {exc}"})
        if isinstance(value, str):
            return value
        if isinstance(value, BaseModel):
            return value.model_dump_json()
        return json.dumps(value, default=str, ensure_ascii=False)


# --- the agent --------------------------------------------------------------------------

OnScore = Callable[[ScoreRecord], "Awaitable[None] | None"]


class Agent:
    """An LLM agent: a tool-calling loop through litellm, with live scorers.

    Args:
        name: The agent's name (recorded with its scores).
        model: A litellm model string or a `scorers.Judge` (its retries, limiter and
            ``api_base`` are used; agent calls are never cached).
        instructions: The system prompt.
        tools: Python functions the model may call.
        scorers: ``{key: {"scorer": s, "sampling": {"type": "ratio", "rate": r}}}`` (or
            ``{key: s}`` for every response); they run in the background after a response.
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
        scorers: Mapping[str, Any] | None = None,
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
        self.scorers: dict[str, _Attachment] = {}
        for key, value in (scorers or {}).items():
            try:
                attachment = (
                    _Attachment(scorer=value)
                    if isinstance(value, Scorer)
                    else _Attachment.model_validate(value)
                )
            except ValidationError as exc:
                raise ConfigError(
                    f"scorer {key!r}: expected a Scorer or {{'scorer': s, 'sampling': "
                    f"{{'type': 'ratio', 'rate': r}}}}: {exc}"
                ) from None
            self.scorers[key] = attachment
        self.on_score = on_score
        self.score_store: ScoreStore = score_store or InMemoryScoreStore()
        self.max_steps = max_steps
        self._pending: set[asyncio.Task[None]] = set()
        self._random = random.Random()

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
            tool_calls = completion.tool_calls
            entry: dict[str, Any] = {"role": "assistant", "content": completion.content}
            if tool_calls:
                entry["tool_calls"] = [
                    {
                        "id": tc.id,
                        "type": "function",
                        "function": {"name": tc.name, "arguments": tc.arguments},
                    }
                    for tc in tool_calls
                ]
            messages.append(entry)
            if not tool_calls:
                finish = "stop"
                break
            answers: list[str] = [""] * len(tool_calls)

            async def run_tool(
                i: int, name: str, arguments: str | None, answers: list[str] = answers
            ) -> None:
                tool = self.tools.get(name)
                answers[i] = (
                    await tool.call(arguments)
                    if tool is not None
                    else json.dumps({"error": f"unknown tool {name!r}; tools: {list(self.tools)}"})
                )

            async with task_group() as tg:
                for i, tc in enumerate(tool_calls):
                    tg.start_soon(run_tool, i, tc.name, tc.arguments)
            for tc, answer in zip(tool_calls, answers, strict=True):
                messages.append(
                    {
                        "role": "tool",
                        "tool_call_id": tc.id,
                        "name": tc.name,
                        "content": answer,
                    }
                )
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

    def generate(
        self, input: str | list[dict[str, Any]], *, run_scorers: bool = True
    ) -> AgentOutput:
        """Synchronous `agenerate`; live scorers keep running after it returns."""

        return run_sync(self.agenerate, input, run_scorers=run_scorers)

    def _start_scorers(self, input: Any, output: AgentOutput) -> None:
        run_id = f"{self.name}-{time.time_ns()}"
        loop = asyncio.get_running_loop()
        for key, attachment in self.scorers.items():
            sampling = attachment.sampling
            if sampling.type == "none" or self._random.random() >= sampling.rate:
                continue
            task = loop.create_task(self._score(key, attachment.scorer, input, output, run_id))
            self._pending.add(task)
            task.add_done_callback(self._pending.discard)

    async def _score(
        self, key: str, scorer: Scorer, input: Any, output: AgentOutput, run_id: str
    ) -> None:
        try:
            with detached_calls():  # runs after the caller's answer: not its calls
                result = await scorer.arun(ScorerRun(input=input, output=output, run_id=run_id))
        except Exception as exc:
            result = scorer.error_result(exc)
        record = ScoreRecord(
            agent=self.name,
            scorer_key=key,
            scorer_id=scorer.id,
            run_id=run_id,
            input=input,
            output=output.text,
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

    async def aflush_scores(self) -> None:
        """Wait until every live scorer started so far has finished."""
        while self._pending:
            await asyncio.gather(*list(self._pending), return_exceptions=True)

    def flush_scores(self) -> None:
        """Synchronous `aflush_scores` (for agents used through `generate`)."""
        run_sync(self.aflush_scores)
