"""What a pipeline's result holds: its answer and its retrieved chunks.

One reader for every place a user's value enters scorekit: the ``"auto"`` extractor, the
answer a scorer judges, what a `run_evals` target returned and what a live scorer sees.
It recognises, by shape:

| shape | answer | chunks |
|---|---|---|
| ``{"output": ..., "context": [...]}`` (and `TargetOutput`-like objects) | ``output`` | ``context`` |
| LangChain ``create_retrieval_chain``: ``{"input", "context", "answer"}`` | ``answer`` | ``context`` |
| LangChain ``RetrievalQA``: ``{"query", "result", "source_documents"}`` | ``result`` | ``source_documents`` |
| any other dict with ``context`` (or ``retrieved_contexts``, ``contexts``) | ``answer`` / ``output`` / ``result`` / ``response`` | that list |
| a chat history (OpenAI or Mastra messages, `AgentOutput`) | last assistant text | tool results |
| a framework's objects (`scorers._frameworks`) | the framework's answer | its documents |
| a list of chunks (str, dict with a text, `Chunk`, framework documents) | — | the list |

A value of none of these shapes is *not read* — never an empty context: the caller
raises `UnreadableOutputError`, naming what it saw. A chunk list is read up to
`MAX_CHUNKS` items; a longer one (or an endless generator) is refused. An attribute or
``__str__`` that raises while being read is the same error, for that run only.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from itertools import islice
from typing import Any

from ._chunks import Chunk, to_chunk, to_chunks
from ._errors import ConfigError, UnreadableOutputError
from ._frameworks import document_chunk, framework_answer, framework_chunks
from ._messages import as_history, history_final_text, tool_chunks
from ._types import AgentOutput

MAX_CHUNKS = 10_000
"""The most chunks scorekit reads from one result; a longer list is an error."""


@dataclass(frozen=True)
class Reading:
    """What a result holds.

    Attributes:
        answer: The answer it carries (None when its shape has none).
        chunks: Its retrieved chunks in rank order (None when its shape has none; an
            empty list when it retrieved nothing).
    """

    answer: Any = None
    chunks: list[Chunk] | None = None


def describe(value: Any) -> str:
    """A short description of a value's shape that never calls its ``__str__``/``__repr__``."""
    kind = type(value).__name__
    if value is None:
        return "None"
    if isinstance(value, Mapping):
        try:
            keys = sorted(k if isinstance(k, str) else f"<{type(k).__name__}>" for k in value)
        except Exception:
            return f"a {kind} whose keys cannot be read"
        shown = ", ".join(repr(k) for k in keys[:12]) + (", ..." if len(keys) > 12 else "")
        return f"a {kind} with keys [{shown}]"
    if isinstance(value, (list, tuple)):
        inner = sorted({type(v).__name__ for v in value[:50]})
        return f"a {kind} of {len(value)} ({', '.join(inner) or 'empty'})"
    if value is None or isinstance(value, (str, bytes, int, float, bool)):
        return f"a {kind}"
    names = [n for n in ("output", "context", "answer", "text", "messages") if _has(value, n)]
    shown = f" (attributes {', '.join(names)})" if names else ""
    module = type(value).__module__
    return f"a {kind}{shown}" if module == "builtins" else f"a {module}.{kind} object{shown}"


def _has(value: Any, name: str) -> bool:
    try:
        return hasattr(value, name)
    except Exception:
        return False


def read_result(value: Any) -> Reading | None:
    """Read ``value`` (see the module's table); None when it has none of the shapes.

    Raises:
        UnreadableOutputError: When reading a recognised shape fails: an item that is no
            chunk, more than `MAX_CHUNKS` chunks, an attribute or ``__str__`` that raised.
    """
    try:
        return _read(value)
    except UnreadableOutputError:
        raise
    except Exception as exc:
        raise UnreadableOutputError(
            f"reading {describe(value)} failed: {exception_text(exc)}"
        ) from exc


def exception_text(exc: BaseException) -> str:
    """``"Type: message"`` of an exception, even when its ``__str__`` raises."""
    try:
        return f"{type(exc).__name__}: {exc}"
    except Exception:
        return type(exc).__name__


def _read(value: Any) -> Reading | None:
    if value is None or isinstance(value, (str, bytes, int, float, bool)):
        return None
    if isinstance(value, AgentOutput):
        return Reading(value.text, tool_chunks(value))
    if isinstance(value, Mapping):
        return _read_mapping(value)
    if _has(value, "output") and _has(value, "context"):
        context = value.context  # a TargetOutput-like object
        return Reading(value.output, None if context is None else retrieved_chunks(context))
    if isinstance(value, (list, tuple, Iterator)):
        items = value if type(value) is list else bounded_list(value)
        if as_history(items) is not None:
            return Reading(history_final_text(items), tool_chunks(items))
        found = framework_chunks(items)
        if found is not None:
            return Reading(None, found)
        return Reading(None, retrieved_chunks(items))
    found = framework_chunks(value)
    if found is not None:
        return Reading(framework_answer(value), found)
    single = document_chunk(value)  # one framework document
    return None if single is None else Reading(None, [single])


_CONTEXT_KEYS = ("context", "source_documents", "retrieved_contexts", "contexts")
_ANSWER_KEYS = ("answer", "output", "result", "response")


def _read_mapping(value: Mapping[Any, Any]) -> Reading | None:
    context_key = next((k for k in _CONTEXT_KEYS if k in value), None)
    if context_key is not None:  # {output, context}, LangChain's chains, Ragas' rows
        answer = next((value[k] for k in _ANSWER_KEYS if k in value), None)
        context = value[context_key]
        return Reading(answer, None if context is None else retrieved_chunks(context))
    if set(value) == {"output"}:
        return Reading(value["output"], None)
    if as_history(value) is not None:
        return Reading(history_final_text(value), tool_chunks(value))
    found = framework_chunks(value)
    return None if found is None else Reading(framework_answer(value), found)


def bounded_list(values: Iterable[Any], limit: int = MAX_CHUNKS) -> list[Any]:
    """The items of an iterable, at most ``limit`` of them.

    Raises:
        UnreadableOutputError: When there are more (an endless generator included).
    """
    items = list(islice(values, limit + 1))
    if len(items) > limit:
        raise UnreadableOutputError(
            f"a result holds more than {limit:,} chunks (scorers.MAX_CHUNKS); return the "
            "ranked list the pipeline used, not an endless or unbounded iterable"
        )
    return items


def retrieved_chunks(values: Any) -> list[Chunk]:
    """Retrieved chunks from a list of str / number / dict with a text / `Chunk` /
    framework document (LangChain, LlamaIndex, Haystack), in order.

    Raises:
        UnreadableOutputError: Naming the first item that is none of those, or when the
            list is longer than `MAX_CHUNKS`.
    """
    if isinstance(values, Mapping):
        try:
            return to_chunks(values)  # one dict with a text is one chunk
        except ConfigError as exc:
            raise UnreadableOutputError(str(exc)) from None
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise UnreadableOutputError(
            f"retrieved context must be a list of chunks; got {describe(values)}"
        )
    items = values if type(values) is list and len(values) <= MAX_CHUNKS else bounded_list(values)
    try:
        return to_chunks(items)
    except ConfigError:
        pass  # framework documents, or an item to name below
    chunks = []
    for position, item in enumerate(items):
        chunk = document_chunk(item)
        if chunk is None:
            try:
                chunk = to_chunk(item)
            except ConfigError as exc:
                raise UnreadableOutputError(
                    f"retrieved chunk {position} is {describe(item)}: {exc}"
                ) from None
        chunks.append(chunk)
    return chunks


def result_text(value: Any) -> str:
    """The answer text of any result: what `read_result` finds, a history's last
    assistant text, or ``str(value)`` for other values ('' for None and empty values).

    Raises:
        UnreadableOutputError: When the value's ``__str__`` raises.
    """
    if isinstance(value, str):
        return value
    reading = read_result(value)
    if reading is not None:
        value = reading.answer
        if value is None or isinstance(value, str):
            return value or ""
        if not isinstance(value, (Mapping, list)):
            return result_text(value)
    if value is None or (isinstance(value, (list, dict)) and not value):
        return ""
    try:
        return str(value)
    except Exception as exc:
        raise UnreadableOutputError(
            f"the answer ({describe(value)}) cannot be read as text: {exception_text(exc)}"
        ) from exc
