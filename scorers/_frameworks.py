"""Retrieved chunks and answers from the objects agent frameworks return, by duck typing.

Nothing here imports a framework: each reader checks for the attributes a framework's
objects have (LangChain's ``Document.page_content``, LlamaIndex's
``NodeWithScore.node``, Haystack's ``Document.content``/``meta``, ...). Chunk ids are the
framework's own ids, so ID-based and ranking scorers work on them.

| framework | what is read |
|---|---|
| LangChain | ``Document`` lists; ``ToolMessage`` (``artifact`` Documents, else its content); message lists and LangGraph states (``{"messages": [...]}``) |
| LlamaIndex | ``Response.source_nodes`` / ``NodeWithScore`` lists (node id, text, score, metadata) |
| Haystack | ``Document`` lists; a pipeline's output (``{"retriever": {"documents": [...]}}``) |
| OpenAI Responses API | ``file_search_call`` results and ``function_call_output`` items of ``output`` |
| OpenAI Agents SDK | ``RunResult.new_items`` tool outputs (``tool_call_output_item``) |
| PydanticAI | message histories and run results: ``ToolReturnPart`` contents |
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._messages import result_chunks
from ._types import Chunk


def _get(value: Any, name: str, default: Any = None) -> Any:
    if isinstance(value, Mapping):
        return value.get(name, default)
    return getattr(value, name, default)


def _with_score(metadata: Any, score: Any) -> dict[str, Any]:
    found = dict(metadata) if isinstance(metadata, Mapping) else {}
    if isinstance(score, (int, float)) and not isinstance(score, bool):
        found["score"] = score
    return found


def document_chunk(item: Any) -> Chunk | None:
    """One document or node of any framework, or None."""
    if isinstance(item, (str, bytes, Mapping)) or item is None:
        return None
    text = getattr(item, "page_content", None)
    if isinstance(text, str):  # LangChain Document
        metadata = getattr(item, "metadata", None) or {}
        chunk_id = getattr(item, "id", None) or metadata.get("id")
        return Chunk(id=chunk_id, text=text, metadata=dict(metadata))
    node = getattr(item, "node", None)
    if node is not None and hasattr(node, "get_content"):  # LlamaIndex NodeWithScore
        metadata = _with_score(getattr(node, "metadata", None), getattr(item, "score", None))
        return Chunk(id=getattr(node, "node_id", None), text=node.get_content(), metadata=metadata)
    if hasattr(item, "get_content") and hasattr(item, "node_id"):  # a LlamaIndex node
        return Chunk(id=item.node_id, text=item.get_content(), metadata=dict(item.metadata or {}))
    content, meta = getattr(item, "content", None), getattr(item, "meta", None)
    if isinstance(meta, Mapping) and (content is None or isinstance(content, str)):  # Haystack
        metadata = _with_score(meta, getattr(item, "score", None))
        return Chunk(id=getattr(item, "id", None), text=content or "", metadata=metadata)
    return None


def _documents(value: Any) -> list[Chunk] | None:
    if not isinstance(value, (list, tuple)):
        return None
    items = list(value)
    found = [document_chunk(item) for item in items]
    if not items or any(chunk is None for chunk in found):
        return None
    return [chunk for chunk in found if chunk is not None]


def _tool_message(message: Any) -> list[Chunk] | None:
    """LangChain's ``ToolMessage``: its artifact's documents, else its content."""
    if _get(message, "type") != "tool" or not hasattr(message, "tool_call_id"):
        return None
    artifact = getattr(message, "artifact", None)
    if artifact is not None:
        documents = _documents(artifact)
        if documents is not None:
            return documents
    return result_chunks(getattr(message, "content", None))


def _langchain_messages(value: Any) -> list[Chunk] | None:
    messages = _get(value, "messages") if isinstance(value, Mapping) else value
    if isinstance(messages, (str, bytes, Mapping)) or not isinstance(messages, list):
        return None
    if not messages or not all(hasattr(m, "type") and hasattr(m, "content") for m in messages):
        return None
    return [chunk for m in messages for chunk in (_tool_message(m) or [])]


def _pydantic_ai(value: Any) -> list[Chunk] | None:
    messages = value.all_messages() if hasattr(value, "all_messages") else value
    if not isinstance(messages, list) or not messages:
        return None
    if not all(isinstance(getattr(m, "parts", None), list) for m in messages):
        return None
    return [
        chunk
        for message in messages
        for part in message.parts
        if getattr(part, "part_kind", None) == "tool-return"
        for chunk in result_chunks(part.content)
    ]


def _openai_output(value: Any) -> list[Chunk] | None:
    """The Responses API's output items (objects or dicts)."""
    items = _get(value, "output")
    if not isinstance(items, list) or not any(_get(i, "type") for i in items):
        return None
    chunks: list[Chunk] = []
    for item in items:
        kind = _get(item, "type")
        if kind == "file_search_call":
            for hit in _get(item, "results") or []:
                metadata = {k: _get(hit, k) for k in ("filename", "attributes") if _get(hit, k)}
                metadata = _with_score(metadata, _get(hit, "score"))
                chunks.append(
                    Chunk(id=_get(hit, "file_id"), text=_get(hit, "text") or "", metadata=metadata)
                )
        elif kind == "function_call_output":
            chunks.extend(result_chunks(_get(item, "output")))
    return chunks


def _agents_sdk(value: Any) -> list[Chunk] | None:
    items = getattr(value, "new_items", None)
    if not isinstance(items, list):
        return None
    return [
        chunk
        for item in items
        if getattr(item, "type", None) == "tool_call_output_item"
        for chunk in result_chunks(getattr(item, "output", None))
    ]


def _haystack_output(value: Any) -> list[Chunk] | None:
    """A Haystack pipeline's output: the ``documents`` of its components."""
    if not isinstance(value, Mapping):
        return None
    lists = [value.get("documents")]
    lists += [v.get("documents") for v in value.values() if isinstance(v, Mapping)]
    found = [docs for docs in (_documents(x) for x in lists if x is not None) if docs is not None]
    return [chunk for docs in found for chunk in docs] if found else None


_READERS = (
    _documents,
    lambda v: _documents(getattr(v, "source_nodes", None)) if hasattr(v, "source_nodes") else None,
    _agents_sdk,
    _openai_output,
    _haystack_output,
    _langchain_messages,
    _pydantic_ai,
)


def framework_chunks(value: Any) -> list[Chunk] | None:
    """The retrieved chunks a framework object holds (see the module's table), or None
    when ``value`` is none of them."""
    if value is None or isinstance(value, (str, bytes, int, float)):
        return None
    for read in _READERS:
        found = read(value)
        if found is not None:
            return found
    return None


def framework_answer(value: Any) -> str | None:
    """The answer text of a framework object: LlamaIndex ``Response.response``, the
    Agents SDK's ``final_output``, PydanticAI's ``output``, a LangChain AI message or a
    LangGraph state's last AI message, a Haystack pipeline's first reply, the Responses
    API's ``output_text``; None otherwise."""
    for name in ("response", "final_output", "output_text"):
        found = getattr(value, name, None)
        if isinstance(found, str):
            return found
    if hasattr(value, "all_messages") and isinstance(getattr(value, "output", None), str):
        return str(value.output)
    if getattr(value, "type", None) == "ai" and isinstance(getattr(value, "content", None), str):
        return str(value.content)
    if isinstance(value, Mapping):
        messages = value.get("messages")
        if isinstance(messages, list):
            for message in reversed(messages):
                if getattr(message, "type", None) == "ai":
                    return str(message.content)
        for part in value.values():
            replies = part.get("replies") if isinstance(part, Mapping) else None
            if isinstance(replies, list) and replies:
                reply = replies[0]
                return str(getattr(reply, "text", None) or reply)
    return None
