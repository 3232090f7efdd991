"""Where a scorer's retrieved context comes from, and the context-extractor registry."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from typing import Any, overload

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ._chunks import Chunk, to_chunks
from ._errors import ConfigError, UnreadableOutputError
from ._messages import as_history, is_agent_shaped, tool_chunks
from ._reading import describe, read_result, retrieved_chunks
from ._registries import Registry
from ._steps import NotScorable, not_scorable
from ._types import ScorerRun

NO_RETRIEVED_TEXT = (
    "skipped: no retrieved text: the run gives retrieved_context_ids (ids only), and this "
    "scorer reads the chunks' text; give context chunks with text to score it"
)

ContextExtractor = Callable[[Any, Any], Any]
"""``fn(input, output) -> list[str | Chunk | dict]``, sync or async."""

_registry: Registry[ContextExtractor] = Registry("context_extractors", "context extractor")


@overload
def register_context_extractor(
    name: str, fn: None = None, *, overwrite: bool = False
) -> Callable[[ContextExtractor], ContextExtractor]: ...
@overload
def register_context_extractor(
    name: str, fn: ContextExtractor, *, overwrite: bool = False
) -> ContextExtractor: ...
def register_context_extractor(
    name: str, fn: ContextExtractor | None = None, *, overwrite: bool = False
) -> Any:
    """Register a context extractor under ``name`` (function call or decorator).

    Example:
        ```python
        @register_context_extractor("search_hits")
        def search_hits(input, output):
            return [m["content"] for m in output if m.get("name") == "search"]

        create_context_recall_scorer(model, {"context_extractor": "search_hits"})
        ```

    Args:
        name: The name scorers refer to in ``context_extractor``.
        fn: ``fn(input, output)`` returning a list of str / dict / `Chunk`; sync or async.
        overwrite: Allow replacing an existing registration.

    Raises:
        ConfigError: If ``name`` is taken (and ``overwrite`` is False) or ``fn`` is not
            callable.
    """

    def register(func: ContextExtractor) -> ContextExtractor:
        if not callable(func):
            raise ConfigError(f"context extractor {name!r} must be callable")
        if not isinstance(name, str) or not name:
            raise ConfigError("a context extractor needs a non-empty string name")
        if name in _registry and not overwrite and _registry[name] is not func:
            raise ConfigError(
                f"a context extractor named {name!r} is already registered; "
                "pass overwrite=True to replace it"
            )
        return _registry.add(name, func, replace=True, override=overwrite)

    return register if fn is None else register(fn)


def get_context_extractor(name: str) -> ContextExtractor:
    """The extractor registered under ``name``.

    Raises:
        ConfigError: If no extractor has that name (the message lists the known ones).
    """
    try:
        return _registry.load()[name]
    except KeyError:
        known = ", ".join(sorted(_registry)) or "none"
        raise ConfigError(
            f"no context extractor named {name!r}; registered: {known}. "
            "Register one with scorers.register_context_extractor(name, fn)."
        ) from None


def list_context_extractors() -> list[str]:
    """Names of all registered extractors (scorekit's, and those of the modules the
    ``scorekit.context_extractors`` entry points name)."""
    return sorted(_registry.load())


def tool_results_extractor(*tool_names: str) -> ContextExtractor:
    """An extractor returning the results of the named tools (all tools when none named).

    JSON results are parsed: lists and ``{"results": [...]}``-style dicts give one chunk
    per element, keeping ``id`` and ``text``/``content`` fields.
    """
    wanted = frozenset(tool_names)

    def extract(input: Any, output: Any) -> list[Chunk]:
        if as_history(output) is None:
            raise UnreadableOutputError(
                f"the tool_results context extractor reads a message history, and the "
                f"output is {describe(output)}; use context_extractor='auto' (framework "
                "objects, {'output', 'context'} dicts, chunk lists) or your own function"
            )
        return tool_chunks(output, wanted)

    extract.__name__ = f"tool_results({', '.join(tool_names)})" if tool_names else "tool_results"
    return extract


register_context_extractor("tool_results", tool_results_extractor())


def auto_extractor(input: Any, output: Any) -> list[Chunk]:
    """The chunks of whatever the run holds, picked by shape (`scorers._reading`):
    ``{"output", "context"}`` dicts, LangChain's retrieval-chain and RetrievalQA outputs,
    a framework's objects (LangChain, LangGraph, LlamaIndex, Haystack, the OpenAI
    Responses API and Agents SDK, PydanticAI), a chat history's tool results or a list
    of chunks — in the output first, then the input.

    Raises:
        UnreadableOutputError: When neither holds retrieved context in a shape it knows
            (a run that retrieved nothing in a known shape is ``[]``, a real 0).
    """
    for value in (output, input):
        reading = read_result(value)
        if reading is not None and reading.chunks is not None:
            return reading.chunks
    raise UnreadableOutputError(
        f"the 'auto' context extractor found no retrieved context in the output "
        f"({describe(output)}) or the input ({describe(input)}). Return "
        "{'output': answer, 'context': [chunks]} from your pipeline, pass "
        "context_extractor=fn (or a name registered with "
        "scorers.register_context_extractor), or give the run context=[...]"
    )


register_context_extractor("auto", auto_extractor)


class ContextOptions(BaseModel):
    """Options shared by every scorer that reads retrieved context.

    Attributes:
        context: A static list of chunks (str, dict with ``text``, or `Chunk`).
        context_extractor: ``fn(input, output)`` (sync or async) or a registered name.
    """

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    context: list[Chunk] | None = None
    context_extractor: Callable[..., Any] | str | None = Field(default=None)

    @field_validator("context", mode="before")
    @classmethod
    def _coerce_context(cls, value: Any) -> Any:
        if value is None:
            return None
        chunks = to_chunks(value)
        if not chunks:
            raise ValueError(
                "context is an empty list; give at least one chunk, or use context_extractor"
            )
        return chunks

    @field_validator("context_extractor")
    @classmethod
    def _known_extractor(cls, value: Any) -> Any:
        if isinstance(value, str):
            get_context_extractor(value)
        return value


async def resolve_context(
    run: ScorerRun, options: ContextOptions | None
) -> list[Chunk] | NotScorable:
    """The chunks a run is scored on, following Mastra's precedence.

    1. Context supplied with the run wins; a run that gives its retrieval as ids only
       (``retrieved_context_ids``) is not scorable on text (`NO_RETRIEVED_TEXT`) unless
       the scorer has a context option of its own.
    2. With both options, agent-shaped runs (a message history, Mastra's agent-run input
       or an `AgentOutput` as input **and** output) use the extractor and other runs the
       static list.
    3. With one option, that one.

    Raises:
        ConfigError: If there is no source at all, or the extractor returns a bad shape.
    """
    if run.context is not None:
        return run.context
    static = options.context if options else None
    extractor = options.context_extractor if options else None
    if run.retrieved_context_ids is not None and static is None and extractor is None:
        return not_scorable(NO_RETRIEVED_TEXT)
    if extractor is not None and (
        static is None or (is_agent_shaped(run.output) and is_agent_shaped(run.input))
    ):
        fn = get_context_extractor(extractor) if isinstance(extractor, str) else extractor
        value = fn(run.input, run.output)
        if inspect.isawaitable(value):
            value = await value
        if value is None:
            return []
        if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
            raise UnreadableOutputError(
                f"context extractor {getattr(fn, '__name__', fn)!r} returned "
                f"{describe(value)}; it must return a list of str / dict / Chunk"
            )
        return retrieved_chunks(value)
    if static is not None:
        return static
    raise ConfigError(
        "this run has no context to score: pass context=[...] to run(), or give the scorer "
        "options={'context': [...]} or {'context_extractor': 'auto'} (or a function or "
        "registered name) to read it from the output"
    )
